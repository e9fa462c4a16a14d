"""GradientTape lab: T2's value and gradients exactly, the curated set, tangent data."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.labs.autodiff import AutodiffError, evaluate, expression_names, tangent


def test_t2_value_and_gradients_exact() -> None:
    result = evaluate("t2")
    assert result.value == 62.5
    assert result.gradients["w"].tolist() == [[35.0], [50.0]]
    assert float(result.gradients["b"]) == 15.0


def test_square_at_three_and_elsewhere() -> None:
    assert float(evaluate("square").gradients["x"]) == 6.0
    assert float(evaluate("square", {"x": -1.5}).gradients["x"]) == -3.0


def test_sigmoid_and_product() -> None:
    s = evaluate("sigmoid", {"x": 0.0})
    assert s.value == pytest.approx(0.5) and float(s.gradients["x"]) == pytest.approx(0.25)
    p = evaluate("product", {"x": 2, "y": 3, "z": 4})
    assert p.value == 24 and [float(p.gradients[k]) for k in "xyz"] == [12, 8, 6]
    assert "t2" in expression_names() and "sigmoid" in expression_names()


def test_tangent_line_touches_curve_with_gradient_slope() -> None:
    data = tangent("square", 1.0)
    assert data.slope == pytest.approx(2.0) and data.y0 == pytest.approx(1.0)
    np.testing.assert_allclose(data.ys, data.xs ** 2, rtol=1e-6)
    i = int(np.argmin(abs(data.xs - 1.0)))
    assert data.tangent[i] == pytest.approx(data.ys[i], abs=1e-5)
    assert (data.tangent <= data.ys + 1e-5).all()   # a convex curve lies above its tangent


def test_bad_requests_are_refused() -> None:
    with pytest.raises(AutodiffError, match="needs 2 value"):
        evaluate("t2", {"w": [1.0, 2.0, 3.0]})
    with pytest.raises(AutodiffError) as info:
        tangent("t2", 0.0)
    assert info.value.key == "foundations.err.not_one_variable"
    with pytest.raises(AutodiffError):
        evaluate("nope")


def test_expression_built_from_the_catalog() -> None:
    result = evaluate("custom:square,sin", {"x": 1.0})
    assert result.value == pytest.approx(np.sin(1.0), rel=1e-6)
    assert float(result.gradients["x"]) == pytest.approx(2 * np.cos(1.0), rel=1e-5)
    assert "tf.sin(tf.square(x))" in result.code
    with pytest.raises(AutodiffError):
        evaluate("custom:")
    with pytest.raises(AutodiffError):
        evaluate("custom:nope")
