"""Canvas events are data from the browser: any JSON a page could receive as the component's
value. Fuzzed events, at the model's level and inside open blocks, either edit the spec (the
result is a spec that survives its JSON) or are refused with a located SpecError whose key
has a message in both languages; nothing else is raised and a refusal changes nothing."""

from __future__ import annotations

import random

import pytest

from tfcore.errors import SpecError
from tfcore.model import FUNCTIONAL, from_json, get_preset, spec_ops
from tfcore.model.canvas_graph import BLOCK_INPUT
from tfcore.model.canvas_ops import NEW_INPUT, OPS, OUTPUTS, apply_event_at
from ui.common.i18n import catalog

NAMES = ["dense", "logits", "flatten", "softmax", "block", "block2", "block_0", "dense_0",
         "x", "image", OUTPUTS, BLOCK_INPUT, NEW_INPUT, "", "../etc", "a" * 300, "名字"]
VALUES = [None, True, 0, -1, 1e308, float("nan"), float("inf"), "12", [], {}, [1, 2],
          {"x": 1}, "Dense", "Dropout", "Add", "NoSuchLayer", NEW_INPUT]


def _value(rng: random.Random):
    pick = rng.random()
    if pick < 0.45:
        return rng.choice(NAMES)
    if pick < 0.8:
        return rng.choice(VALUES)
    return [rng.choice(NAMES) for _ in range(rng.randint(0, 3))]


def _event(rng: random.Random):
    if rng.random() < 0.05:
        return rng.choice([None, [], "add", 7, {"op": None}, {"op": "drop tables"}])
    event = {"op": rng.choice(OPS)}
    for field in rng.sample(["type", "x", "y", "name", "names", "source", "target", "nodes",
                             "edges", "index", "positions", "path"], rng.randint(0, 5)):
        event[field] = _value(rng)
    if rng.random() < 0.3:
        event["positions"] = {rng.choice(NAMES): [_value(rng), _value(rng)]}
    if rng.random() < 0.3:
        event["edges"] = [{"source": rng.choice(NAMES), "target": rng.choice(NAMES),
                           "role": rng.choice(["data", "shares", None, 3])}]
    return event


def _specs():
    mlp = get_preset("mlp")
    grouped = spec_ops.group_into_block(mlp, ["dense", "logits"])
    return [
        (mlp, ()), (spec_ops.convert_kind(mlp, FUNCTIONAL), ()), (grouped, ("block",)),
        (spec_ops.convert_kind(grouped, FUNCTIONAL), ("block",)),
        (get_preset("nested_blocks"), ("block2",)),
        (get_preset("nested_blocks"), ("block2", "block_0")),
        (get_preset("mlp_functional"), ()), (get_preset("tied"), ()),
    ]


KEYS = set(catalog("en")) & set(catalog("zh"))


@pytest.mark.parametrize("seed", range(40))
def test_fuzzed_canvas_events_edit_or_are_refused_with_a_known_key(seed: int) -> None:
    rng = random.Random(seed)
    for spec, path in _specs():
        for _ in range(10):
            event = _event(rng)
            try:
                new = apply_event_at(spec, path, event)
            except SpecError as exc:
                assert exc.key in KEYS, (event, exc.key, exc.message)
                continue
            assert from_json(new.to_json()) == new, event      # a spec like any other
            spec = new
            try:
                spec_ops.block_children(spec, path)
            except SpecError:                                  # the block was ungrouped
                path = ()
