"""One protocol for the canvas component (``frontend/src/protocol.json``): every event the
frontend sends (each ``send("op", {...})`` in src/) is declared with its fields and every
declared event is sent; every argument and label the frontend reads is declared and every
declared one is read; Python refuses to send an undeclared or mistyped argument and refuses
an event that breaks the protocol with the ``canvas.bad_event`` key."""

from __future__ import annotations

import re

import pytest

from tfcore.errors import SpecError
from ui.canvas.component import (
    EVENT_FIELDS,
    FRONTEND,
    PROTOCOL,
    check_event,
    component_events,
    event_problems,
    model_canvas,
)
from ui.common.i18n import catalog

SOURCE = "\n".join(p.read_text(encoding="utf-8")
                   for p in sorted((FRONTEND / "src").glob("*.js*")) if p.suffix != ".json")
CLOSE = {"(": ")", "[": "]", "{": "}"}


def _top_level_keys(text: str, start: int) -> set[str]:
    """The keys of the object literal that opens at ``text[start]`` ("{"), not nested ones."""
    depth, shallow, quote = 0, [], ""
    for n in range(start, len(text)):
        char = text[n]
        if quote:
            quote = "" if char == quote and text[n - 1] != "\\" else quote
        elif char in "\"'`":
            quote = char
        elif char in CLOSE:
            depth += 1
        elif char in CLOSE.values():
            depth -= 1
            if depth == 0:
                break
        elif depth == 1:
            shallow.append(char)
    body = "".join(shallow)
    return set(re.findall(r"(?:^|,)\s*(\w+)\s*(?=[:,]|$)", body))


def _sends() -> list[tuple[str, set[str]]]:
    """Each ``send(...)`` call of the frontend: its op and the keys of its fields."""
    calls = []
    for match in re.finditer(r"(?<!function )\bsend\(", SOURCE):
        literal = re.match(r'send\("(\w+)"\s*(,\s*\{)?', SOURCE[match.start():])
        assert literal, f"send() without a literal op: {SOURCE[match.start():][:60]!r}"
        fields = (_top_level_keys(SOURCE, match.start() + literal.end() - 1)
                  if literal.group(2) else set())
        calls.append((literal.group(1), fields))
    return calls


def test_the_parser_reads_top_level_keys_only() -> None:
    text = 'send("delete", { nodes: ns.map((n) => n.id), edges: es.map((e) => ({ a: 1 })) })'
    assert _top_level_keys(text, text.index("{")) == {"nodes", "edges"}
    text = 'send("move", { positions })'
    assert _top_level_keys(text, text.index("{")) == {"positions"}


def test_every_event_the_frontend_sends_is_declared_and_every_declared_one_is_sent() -> None:
    calls = _sends()
    assert len(calls) >= 12
    events = PROTOCOL["events"]
    assert {op for op, _ in calls} == set(events)
    for op, fields in calls:
        assert fields <= set(events[op]), (op, fields - set(events[op]))
        required = {f for f, spec in events[op].items() if spec.get("required")}
        assert required <= fields, (op, required - fields)


def test_every_argument_and_label_the_frontend_reads_is_declared_and_read() -> None:
    args = PROTOCOL["args"]
    assert set(re.findall(r"\bargs\.(\w+)", SOURCE)) == set(args)
    assert set(re.findall(r"\blabels\.(\w+)", SOURCE)) == set(args["labels"]["fields"])
    assert "rev" not in args and "keep_view" not in args
    node_fields = set(args["graph"]["fields"]["nodes"]["items"]["fields"])
    nodes = (FRONTEND / "src" / "nodes.jsx").read_text(encoding="utf-8")
    assert set(re.findall(r"\bdata\.(\w+)", nodes)) - {"open_label"} <= node_fields


def test_python_sends_only_declared_arguments_of_their_type() -> None:
    for extra, message in [({"rev": 3}, "args.rev: not in protocol.json"),
                           ({"height": "tall"}, "args.height: 'tall' is not integer")]:
        args = {**_good_args(), **extra}
        with pytest.raises(ValueError, match=re.escape(message)):
            model_canvas(**args)
    args = _good_args()
    del args["status"]
    with pytest.raises(ValueError, match="args.status: missing"):
        model_canvas(**args)
    args = _good_args()
    args["graph"]["nodes"] = [{"id": "x"}]
    with pytest.raises(ValueError, match=r"args.graph.nodes\[0\].name: missing"):
        model_canvas(**args)


def _good_args() -> dict:
    return {"graph": {"kind": "sequential", "nodes": [], "edges": []}, "palette": [],
            "labels": {k: k for k in PROTOCOL["args"]["labels"]["fields"]}, "selected": None,
            "ack": None, "can_undo": False, "can_redo": False, "height": 620, "trail": [],
            "status": ""}


GOOD = [{"op": "add", "type": "Dense", "x": 1, "y": 2.5}, {"op": "undo"}, {"op": "redo"},
        {"op": "select", "name": None}, {"op": "open", "path": []}, {"op": "open", "name": "b"},
        {"op": "delete", "nodes": ["a"], "edges": [{"source": "a", "target": "b"}]},
        {"op": "move", "positions": {"a": [1, 2]}}, {"op": "reorder", "name": "a", "y": 3},
        {"op": "group", "names": ["a", "b"]}, {"op": "connect", "source": "a", "target": "b"}]
BAD = [(None, "event: 'None' is not an object"),
       ({"op": "ungroup", "name": "a"}, "event.op: 'ungroup' is not an event"),
       ({"op": "add", "type": "Dense", "x": 1}, "add.y: missing"),
       ({"op": "add", "type": "Dense", "x": True, "y": 0}, "add.x: 'True' is not number"),
       ({"op": "undo", "layout": True}, "undo.layout: not in protocol.json"),
       ({"op": "select", "name": [1]}, "select.name: '[1]' is not string or null"),
       ({"op": "group", "names": ["a", 2]}, "group.names[1]: '2' is not string"),
       ({"op": "undo", "seq": "1"}, "undo.seq: '1' is not integer")]


def test_events_that_fit_pass_and_others_are_refused_located() -> None:
    assert {e["op"] for e in GOOD} == set(PROTOCOL["events"])
    for n, event in enumerate(GOOD):
        assert event_problems({**event, "seq": n + 1}) == [], event
        check_event({**event, "seq": n + 1})
    for event, problem in BAD:
        event = {"seq": 1, **event} if isinstance(event, dict) else event
        assert problem in "; ".join(event_problems(event)), event
        with pytest.raises(SpecError) as caught:
            check_event(event)
        assert caught.value.key == "canvas.bad_event"
        assert problem in caught.value.params["event"]
        for lang in ("en", "zh"):
            assert problem in catalog(lang)["canvas.bad_event"].format(**caught.value.params)
    assert set(EVENT_FIELDS) == {"op", "seq"}


def test_the_component_value_must_fit_too() -> None:
    assert component_events({"token": "t", "events": [{"op": "undo", "seq": 1}]}) == (
        "t", [{"op": "undo", "seq": 1}])
    for value in [None, [], {"token": 3, "events": []}, {"token": "t", "events": "no"},
                  {"token": "t", "events": [], "more": 1}, {"events": []}]:
        assert component_events(value) == ("", [])
