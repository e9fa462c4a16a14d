"""Generated Keras code runs and builds the same model, for every preset and style."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tfcore.errors import SpecError
from tfcore.model.codegen import STYLES, generate
from tfcore.model.presets import get_preset, preset_names
from tfcore.model.spec import FUNCTIONAL, InputSpec, LayerSpec, ModelSpec
from tfcore.model.summary import summarize

# MobileNetV2 takes ~1-2 s per build: one style each for it, every style for the rest.
SLOW = {"mobilenet_v2": ("functional",)}
CASES = [(name, style) for name in preset_names() for style in SLOW.get(name, STYLES)
         if not (name == "deferred" and style == "functional")]


def _run(code: str) -> object:
    namespace = {"__name__": "generated"}
    exec(compile(code, "<generated>", "exec"), namespace)
    return namespace["build_model"]()


@pytest.mark.parametrize("name,style", CASES)
def test_generated_code_builds_the_same_model(name: str, style: str) -> None:
    spec = get_preset(name)
    summary = summarize(spec)
    model = _run(generate(spec, style))
    if summary.deferred:
        assert not model.built and model.weights == []
        return
    assert model.count_params() == summary.total
    import keras

    out = model(keras.Input(shape=spec.inputs[0].shape))  # symbolic: any style
    shape = summary.rows[-1].output_shape
    assert str(tuple(out.shape)).replace(" ", "") == shape.replace(" ", "")


def _branchy() -> ModelSpec:
    return ModelSpec("branchy", FUNCTIONAL, (InputSpec("x", (8,)),), (
        LayerSpec("a", "Dense", {"units": 8, "activation": "relu"}, inputs=("x",)),
        LayerSpec("b", "Dense", {"units": 8, "kernel_regularizer": {"name": "l2", "factor": 0.1},
                                 "kernel_initializer": {"name": "random_normal",
                                                        "params": {"stddev": 0.01}}},
                  inputs=("x",)),
        LayerSpec("a_again", "Dense", inputs=("b",), shares="a"),
        LayerSpec("sum", "Add", inputs=("a", "a_again")),
        LayerSpec("out", "Dense", {"units": 2}, inputs=("sum",))), outputs=("out",))


def test_branch_merge_and_shared_layer_in_functional_and_subclass() -> None:
    spec = _branchy()
    total = summarize(spec).total
    assert total == 72 + 72 + 18
    for style in ("functional", "subclass"):
        model = _run(generate(spec, style))
        assert model.count_params() == total and len(model.weights) == 6
    with pytest.raises(SpecError) as info:
        generate(spec, "sequential")
    assert info.value.key == "spec.codegen_not_chain"


def test_refusals_are_clear() -> None:
    with pytest.raises(SpecError) as info:
        generate(get_preset("deferred"), "functional")
    assert "input" in info.value.message
    with pytest.raises(SpecError):
        generate(get_preset("mlp"), "keras2")
    bad = ModelSpec("bad", FUNCTIONAL, (InputSpec("x", (8,)),),
                    (LayerSpec("out", "Dense", {"units": 0}, inputs=("x",)),), ("out",))
    with pytest.raises(SpecError) as info:
        generate(bad, "functional")
    assert "out.units" in str(info.value.details[0])


def test_generated_file_runs_as_a_script_without_tflab(tmp_path) -> None:
    path = tmp_path / "model.py"
    path.write_text(generate(get_preset("my_dense"), "subclass"), encoding="utf-8")
    result = subprocess.run([sys.executable, str(path)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "529" in result.stdout
