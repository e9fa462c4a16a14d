"""The plain-Python shape and parameter rules (``tfcore/model/shapes.py`` and its
``shape_*`` family modules, issue 28) say what Keras builds: every layer's output shape and
parameter count, checked against a real build of small models."""

from __future__ import annotations

import pytest

from tfcore.model import from_dict
from tfcore.model.build import build_traced
from tfcore.model.validate import validate


def _spec(shape: list, layers: list[tuple[str, dict]]) -> dict:
    return {"format": 1, "name": "rules", "kind": "sequential",
            "inputs": [{"name": "x", "shape": shape, "dtype": "float32"}],
            "layers": [{"name": f"l{i}", "type": t, "config": c}
                       for i, (t, c) in enumerate(layers)], "outputs": []}


CASES = {
    "resizing-crops": _spec([32, 24, 3], [("Resizing", {"height": 16, "width": 20}),
                                          ("CenterCrop", {"height": 8, "width": 10}),
                                          ("RandomCrop", {"height": 4, "width": 6})]),
    "einsum-dense": _spec([16], [("EinsumDense", {"equation": "ab,bc->ac",
                                                  "output_shape": [8], "bias_axes": "c"})]),
    "einsum-sequence": _spec([5, 16], [("EinsumDense", {"equation": "abc,cde->abde",
                                                        "output_shape": [5, 4, 3],
                                                        "bias_axes": "de"})]),
    "einsum-kernel-out": _spec([7], [("EinsumDense", {"equation": "ab,bcd->acd",
                                                      "output_shape": [3, 2]})]),
    "upsampling-padding": _spec([6, 5, 2], [("UpSampling2D", {"size": [2, 3]}),
                                            ("ZeroPadding2D", {"padding": [1, 2]}),
                                            ("Cropping2D", {"cropping": [[1, 0], [2, 1]]})]),
    "transposed-separable": _spec([8, 8, 3], [
        ("Conv2DTranspose", {"filters": 4, "kernel_size": 3, "strides": 2}),
        ("SeparableConv2D", {"filters": 5, "kernel_size": 3, "depth_multiplier": 2}),
        ("DepthwiseConv2D", {"kernel_size": 3, "padding": "same"})]),
    # MobileNet's and MobileNetV3's head: a 1x1 convolution after a pooling that keeps its
    # axes (the rule once dropped them for the two average poolings only, and refused it)
    "global-pooling-keepdims": _spec([7, 7, 16], [
        ("GlobalAveragePooling2D", {"keepdims": True}),
        ("Conv2D", {"filters": 5, "kernel_size": 1}), ("Reshape", {"target_shape": [5]})]),
    "global-pooling-1d-keepdims": _spec([9, 4], [
        ("GlobalAveragePooling1D", {"keepdims": True}), ("Conv1D", {"filters": 3,
                                                                    "kernel_size": 1}),
        ("GlobalMaxPooling1D", {})]),
    "sequence": _spec([6], [("Embedding", {"input_dim": 50, "output_dim": 4}),
                            ("LSTM", {"units": 3, "return_sequences": True}),
                            ("Permute", {"dims": [2, 1]}), ("Flatten", {}),
                            ("RepeatVector", {"n": 2})]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_static_shapes_and_parameters_match_keras(name) -> None:
    spec = from_dict(CASES[name])
    static = validate(spec)
    assert not static.problems, static.problems
    built = build_traced(spec)
    for entry in spec.layers:
        assert static.shapes[entry.name] == tuple(built.shapes[entry.name][1:]), entry.name
        assert static.params[entry.name] == built.layers[entry.name].count_params(), entry.name


def _graph(shape: list, layers: list[tuple[str, str, list, dict]], out: str) -> dict:
    return {"format": 1, "name": "rules", "kind": "functional",
            "inputs": [{"name": "x", "shape": shape, "dtype": "float32"}],
            "layers": [{"name": n, "type": t, "inputs": i, "config": c}
                       for n, t, i, c in layers], "outputs": [out]}


def test_element_wise_merges_broadcast_as_keras_does() -> None:
    """A squeeze-and-excite block (EfficientNetV2's) multiplies (6, 6, 8) by (1, 1, 8);
    Add broadcasts a shorter shape from the last axis; sizes that differ and are not 1 are
    refused, located at the merge."""
    spec = from_dict(_graph([6, 6, 8], [
        ("squeeze", "GlobalAveragePooling2D", ["x"], {"keepdims": True}),
        ("excite", "Conv2D", ["squeeze"], {"filters": 8, "kernel_size": 1}),
        ("scaled", "Multiply", ["x", "excite"], {}),
        ("row", "GlobalAveragePooling2D", ["scaled"], {}),
        ("shifted", "Add", ["scaled", "row"], {})], "shifted"))
    static = validate(spec)
    assert not static.problems, static.problems
    built = build_traced(spec)
    for name in ("scaled", "shifted"):
        assert static.shapes[name] == tuple(built.shapes[name][1:]) == (6, 6, 8), name
    bad = from_dict(_graph([6, 6, 8], [
        ("other", "Conv2D", ["x"], {"filters": 3, "kernel_size": 1}),
        ("wrong", "Multiply", ["x", "other"], {})], "wrong"))
    [problem] = validate(bad).problems
    assert "wrong" in str(problem) and "[6, 6, 3]" in str(problem)


def test_a_channels_first_global_pooling_is_left_to_keras() -> None:
    spec = from_dict(_spec([16, 7, 7], [("GlobalAveragePooling2D",
                                         {"data_format": "channels_first"})]))
    assert validate(spec).shapes["l0"] is None        # not (7,): the channels are first


def test_an_einsum_with_an_ellipsis_is_left_to_keras() -> None:
    spec = from_dict(_spec([4, 16], [("EinsumDense", {"equation": "...b,bc->...c",
                                                      "output_shape": 8})]))
    assert validate(spec).shapes["l0"] is None
