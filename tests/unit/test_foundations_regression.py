"""Gradient descent lab: M1 and M2 reach the scenario's parameters; stepping API."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.labs.regression import GradientDescentLab, RegressionLabError, house_prices, solve


def test_house_prices_are_min_max_normalized() -> None:
    x, y = house_prices()
    assert x.tolist() == pytest.approx([0, 0.25, 0.5, 0.75, 1])
    assert y.tolist() == pytest.approx([0, 0.3636364, 0.5454545, 0.8181818, 1])


def test_m1_scenario() -> None:
    snap = solve("m1")
    assert snap.step == 10_000 and len(snap.loss_history) == 10_000
    assert float(snap.params["a"][0]) == pytest.approx(0.9764, abs=1e-3)
    assert float(snap.params["b"][0]) == pytest.approx(0.0576, abs=1e-3)
    assert snap.loss_history[-1] < snap.loss_history[0]


def test_m2_scenario() -> None:
    snap = solve("m2")
    np.testing.assert_allclose(snap.params["kernel"], [0.408, 1.191, 1.974], atol=1e-3)
    assert float(snap.params["bias"][0]) == pytest.approx(0.783, abs=1e-3)


def test_steps_in_chunks_equal_one_run_and_reset() -> None:
    lab = GradientDescentLab("m2")
    for _ in range(4):
        lab.run(25)
    snap = lab.snapshot()
    assert snap.step == 100 and snap.param_history["kernel"].shape == (100, 3)
    np.testing.assert_allclose(snap.params["kernel"], solve("m2").params["kernel"], atol=1e-6)
    lab.reset()
    assert lab.snapshot().step == 0 and float(lab.snapshot().params["bias"][0]) == 0.0


def test_optimizer_change_keeps_parameters() -> None:
    lab = GradientDescentLab("m1")
    before = lab.run(100).params["a"].copy()
    lab.set_optimizer("adam", 0.1)
    after = lab.run(50)
    assert after.step == 150 and after.optimizer == "adam"
    assert not np.allclose(after.params["a"], before)
    with pytest.raises(RegressionLabError):
        lab.set_optimizer("nope", 0.1)
    with pytest.raises(RegressionLabError):
        lab.set_optimizer("sgd", 0.0)
    with pytest.raises(RegressionLabError):
        lab.run(0)
