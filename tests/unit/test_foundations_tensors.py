"""Tensor lab: creators, the operation catalog, and shape/dtype errors in plain words."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.errors import TFLabError
from tfcore.labs.tensors import TensorLabError, apply_op, create_tensor, parse_matrix


def test_constant_from_typed_matrix_text_and_json() -> None:
    a = create_tensor("constant", text="1 2; 3 4")
    assert a.shape == (2, 2) and a.dtype == "float32"
    assert a.values.tolist() == [[1, 2], [3, 4]]
    assert a.code == "tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)"
    b = create_tensor("constant", text="[[1, 2], [3, 4]]", dtype="int64")
    assert b.dtype == "int64" and b.code == "tf.constant([[1, 2], [3, 4]], dtype=tf.int64)"
    assert "CPU" in a.device or "GPU" in a.device
    assert parse_matrix("5").shape == ()
    assert parse_matrix("1, 2, 3").shape == (3,)


@pytest.mark.parametrize("text, key", [("1 2; 3", "parse_ragged"), ("1 x", "parse_value"),
                                       ("", "parse_empty")])
def test_bad_matrix_text_is_refused(text: str, key: str) -> None:
    with pytest.raises(TensorLabError) as info:
        create_tensor("constant", text=text)
    assert info.value.key == f"foundations.err.{key}"
    assert isinstance(info.value, TFLabError)


def test_fills_random_with_seed_and_range() -> None:
    assert create_tensor("zeros", shape="2, 3").values.sum() == 0
    assert create_tensor("ones", shape="3", dtype="int32").values.tolist() == [1, 1, 1]
    u1 = create_tensor("uniform", shape="2, 2", seed=7)
    u2 = create_tensor("uniform", shape="2, 2", seed=7)
    u3 = create_tensor("uniform", shape="2, 2", seed=8)
    np.testing.assert_array_equal(u1.values, u2.values)
    assert not np.array_equal(u1.values, u3.values)
    assert ((u1.values >= 0) & (u1.values < 1)).all()
    n = create_tensor("normal", shape="2000", seed=1, a=5.0, b=0.5)
    assert abs(n.values.mean() - 5.0) < 0.1 and abs(n.values.std() - 0.5) < 0.05
    r = create_tensor("range", start=0, limit=6, delta=2, dtype="int32")
    assert r.values.tolist() == [0, 2, 4] and r.code == "tf.range(0, 6, 2, dtype=tf.int32)"
    with pytest.raises(TensorLabError):
        create_tensor("range", start=0, limit=6, delta=-1)
    with pytest.raises(TensorLabError):
        create_tensor("uniform", shape="2", dtype="int32")


def test_operation_catalog_values_and_code() -> None:
    a = create_tensor("constant", text="1 2; 3 4")
    b = create_tensor("constant", text="1 0 1; 0 1 0")
    mm = apply_op("matmul", [a, b], ["A", "B"])
    assert mm.values.tolist() == [[1, 2, 1], [3, 4, 3]] and mm.code == "tf.matmul(A, B)"
    assert apply_op("add", [a, a]).values.tolist() == [[2, 4], [6, 8]]
    assert apply_op("square", [a]).values.tolist() == [[1, 4], [9, 16]]
    assert apply_op("reduce_sum", [a], axis="0").values.tolist() == [4, 6]
    assert apply_op("reduce_sum", [a], axis="").values.tolist() == 10
    assert apply_op("reduce_mean", [a], ["A"], axis="1").code == "tf.reduce_mean(A, axis=1)"
    assert apply_op("reshape", [b], shape="3, -1").shape == (3, 2)
    assert apply_op("concat", [a, b], axis="1").shape == (2, 5)
    assert apply_op("transpose", [b]).shape == (3, 2)
    cast = apply_op("cast", [a], ["A"], dtype="int32")
    assert cast.dtype == "int32" and cast.code == "tf.cast(A, tf.int32)"


@pytest.mark.parametrize("op, params, key", [
    ("matmul", {}, "matmul_inner"), ("add", {}, "broadcast"),
    ("concat", {"axis": "0"}, "concat")])
def test_shape_mismatch_names_both_shapes(op: str, params: dict, key: str) -> None:
    b = create_tensor("ones", shape="2, 3")
    a = create_tensor("ones", shape="2, 2")
    with pytest.raises(TensorLabError) as info:
        apply_op(op, [b, a], **params)
    assert info.value.key == f"foundations.err.{key}"
    assert "[2, 3]" in info.value.message and "[2, 2]" in info.value.message


def test_dtype_axis_and_reshape_errors() -> None:
    a = create_tensor("ones", shape="2, 2")
    i = create_tensor("ones", shape="2, 2", dtype="int32")
    with pytest.raises(TensorLabError, match="float32.*int32") as info:
        apply_op("add", [a, i])
    assert info.value.key == "foundations.err.dtype_mismatch"
    with pytest.raises(TensorLabError, match=r"Axis 2 .*\[2, 2\]"):
        apply_op("reduce_sum", [a], axis="2")
    with pytest.raises(TensorLabError, match=r"\[2, 2\] \(4 elements\) into \[3\]"):
        apply_op("reshape", [a], shape="3")
    with pytest.raises(TensorLabError):
        apply_op("matmul", [a])


# ---- error params may have any name (``message``, ``key``, ``name``, ...) ---------------

def test_error_params_named_key_and_message_keep_their_values() -> None:
    from tfcore.labs.tensor_text import tensor_error

    exc = tensor_error("tf", key="dense/kernel", message="bad key", op="add",
                       shapes="[2], [3]")
    assert isinstance(exc, TensorLabError)
    assert exc.message == str(exc) == "add failed for shapes [2], [3]: bad key"
    assert exc.key == "foundations.err.tf"
    assert exc.params == {"key": "dense/kernel", "message": "bad key", "op": "add",
                          "shapes": "[2], [3]"}


def test_a_tensorflow_error_the_checks_missed_is_shown_with_its_message(monkeypatch) -> None:
    """The ``tf`` error passes TF's text as a param named ``message`` (it used to raise
    "got multiple values for argument 'message'" instead of the error)."""
    import tensorflow as tf

    from tfcore.labs import tensors
    from ui.common.errors import error_text

    def boom(ts, p):
        raise tf.errors.InvalidArgumentError(None, None, "Input is not invertible.")

    monkeypatch.setitem(tensors.OPS, "square", tensors.OpDef("square", 1, boom))
    a = create_tensor("constant", text="1 2; 2 4")
    with pytest.raises(TensorLabError) as info:
        apply_op("square", [a], ["A"])
    exc = info.value
    assert exc.key == "foundations.err.tf"
    assert exc.message == "square failed for shapes [2, 2]: Input is not invertible."
    assert exc.params["message"] == "Input is not invertible."
    # the page's text: the English template with the params (Markdown brackets escaped)
    assert error_text(exc) == r"square failed for shapes \[2, 2\]: Input is not invertible."


def test_keywords_never_collide_with_the_positional_arguments() -> None:
    a = create_tensor("zeros", shape="2", kind="ignored")
    assert a.values.tolist() == [0.0, 0.0]
    result = apply_op("square", [create_tensor("constant", text="3 4")], ["A"], name="sq",
                      inputs="x", names="y")
    assert result.values.tolist() == [9.0, 16.0] and result.code == "tf.square(A)"
