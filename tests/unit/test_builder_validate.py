"""Validation reports every problem at once, located; Keras's rejection names its layer."""

from __future__ import annotations

import pytest

from tfcore.errors import SpecError
from tfcore.model.presets import get_preset
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL, InputSpec, LayerSpec, ModelSpec
from tfcore.model.summary import summarize
from tfcore.model.validate import check, validate

L = LayerSpec


def _functional(*layers, outputs=("out",), inputs=(InputSpec("x", (8,)),)) -> ModelSpec:
    return ModelSpec("g", FUNCTIONAL, inputs, tuple(layers), tuple(outputs))


def _located(spec: ModelSpec, **kw) -> dict[tuple[str, str], str]:
    return {(p.location, p.field): p.key for p in validate(spec, **kw).problems}


def test_every_problem_at_once_located() -> None:
    spec = _functional(
        L("a", "Dense", {"units": 0}, inputs=("x",)),
        L("a", "Dense", {"units": 3}, inputs=("x",)),
        L("b", "Dens", inputs=("x",)),
        L("c", "Dense", {"activation": "relux", "bogus": 1}, inputs=("x",)),
        L("", "Flatten", inputs=("x",)),
        L("out", "Dense", {"units": 1}, inputs=("c",)),
        outputs=("out", "missing"))
    found = _located(spec)
    assert found[("a", "units")] == "spec.problem.value"
    assert found[("a", "name")] == "spec.problem.duplicate"
    assert found[("b", "type")] == "spec.problem.unknown_type_close"   # "Dense" is close
    assert found[("c", "activation")] == "spec.problem.value"
    assert found[("c", "bogus")] == "spec.problem.unknown_param"
    assert found[("layer", "name")] == "spec.problem.name"
    assert found[("spec", "outputs")] == "spec.problem.bad_output"
    problem = next(p for p in validate(spec).problems if p.field == "units")
    assert problem.value == 0 and str(problem) == problem.allowed
    assert problem.allowed == "a.units: 0 is not allowed; use an integer from 1 to 1,000,000."
    rule = problem.params["allowed"]                  # structured: the bounds, not a phrase
    assert (rule.key, dict(rule.params)) == ("param.allowed.int_low_high",
                                             {"low": 1, "high": 1_000_000})
    assert rule["zh"] == "1 到 1,000,000 之间的整数"


def test_graph_problems_cycle_unreachable_unused_missing_outputs() -> None:
    spec = _functional(
        L("c", "Add", inputs=("x", "d")), L("d", "Dense", {"units": 8}, inputs=("c",)),
        L("h", "Dense", {"units": 4}, inputs=("nowhere",)),
        L("lonely", "Dense", {"units": 4}, inputs=("x",)),
        L("one_in", "Add", inputs=("x",)),
        outputs=())
    found = _located(spec)
    assert found[("c", "inputs")] == found[("d", "inputs")] == "spec.problem.cycle"
    assert found[("h", "inputs")] == "spec.problem.missing_input"
    assert found[("h", "")] == "spec.problem.unreachable"
    assert found[("lonely", "")] == "spec.problem.unused"
    assert found[("one_in", "inputs")] == "spec.problem.arity"
    assert found[("spec", "outputs")] == "spec.problem.no_outputs"


def test_merge_shapes_and_reshape_sizes_checked_before_tensorflow() -> None:
    spec = _functional(
        L("a", "Dense", {"units": 4}, inputs=("x",)), L("b", "Dense", {"units": 5}, inputs=("x",)),
        L("m", "Add", inputs=("a", "b")), L("r", "Reshape", {"target_shape": [3, 3]},
                                             inputs=("x",)),
        L("cat", "Concatenate", inputs=("a", "b")), L("out", "Concatenate", inputs=("m", "r", "cat")))
    found = _located(spec)
    assert found[("m", "inputs")] == "spec.problem.merge_shapes"
    assert found[("r", "target_shape")] == "spec.problem.reshape"
    assert ("cat", "inputs") not in found  # concatenation along the last axis is fine
    assert validate(spec).shapes["cat"] == (9,)


def test_parameter_limit_refuses_a_typo_before_allocation() -> None:
    spec = ModelSpec("big", SEQUENTIAL, (InputSpec("x", (784,)),),
                     (L("huge", "Dense", {"units": 1_000_000}),))
    problems = validate(spec, param_limit=50_000_000).problems
    assert [(p.location, p.field, p.key) for p in problems] == [
        ("huge", "params", "spec.problem.too_many_params")]
    assert problems[0].value == 785_000_000
    assert validate(get_preset("cnn"), param_limit=3_000_000).problems[0].location == "dense"
    summary = summarize(spec)  # never builds it
    assert not summary.built and summary.problems


def test_sequential_specific_and_share_problems() -> None:
    spec = ModelSpec("s", SEQUENTIAL, (InputSpec("x", (4,)), InputSpec("y", (4,))), (
        L("m", "Add"), L("again", "Dense", {"units": 2}, shares="d"),
        L("d", "Dense", {"units": 4}, inputs=("x",)), L("f", "Flatten", shares="d"),
        L("blk", "Block"), L("nb", "Dense", layers=(L("kid", "Dense"),))))
    found = _located(spec)
    assert found[("spec", "inputs")] == "spec.problem.sequential_many_inputs"
    assert found[("m", "type")] == "spec.problem.merge_in_sequential"
    assert found[("again", "shares")] == "spec.problem.shares_order"
    assert found[("again", "config")] == "spec.problem.shares_config"
    assert found[("d", "inputs")] == "spec.problem.sequential_inputs"
    assert found[("f", "shares")] == "spec.problem.shares_type"
    assert found[("blk", "layers")] == "spec.problem.empty_block"
    assert found[("nb", "layers")] == "spec.problem.not_block"


def test_input_shape_and_rank_problems() -> None:
    spec = ModelSpec("s", SEQUENTIAL, (InputSpec("x", (0,)),), (L("d", "Dense"),))
    assert _located(spec)[("x", "shape")] == "spec.problem.input_shape"
    spec = ModelSpec("s", SEQUENTIAL, (InputSpec("x", (8,)),), (L("c", "Conv2D"),))
    assert _located(spec)[("c", "inputs")] == "spec.problem.rank"


def test_keras_rejection_is_attributed_to_its_layer() -> None:
    spec = ModelSpec("small", SEQUENTIAL, (InputSpec("img", (16, 16, 3)),),
                     (L("backbone", "VGG16", {"classes": 3}),))
    assert validate(spec).ok  # only Keras knows the minimum size of VGG16
    summary = summarize(spec)
    assert not summary.built
    [problem] = summary.problems
    assert problem.location == "backbone" and problem.key == "spec.problem.keras"
    assert "32" in problem.params["message"]


def test_check_raises_with_every_problem() -> None:
    spec = _functional(L("out", "Dense", {"units": -1}, inputs=("x",)),
                       L("z", "Dense", {"units": 0}, inputs=("x",)))
    with pytest.raises(SpecError) as info:
        check(spec)
    assert len(info.value.details) == 3 and info.value.params["count"] == 3
