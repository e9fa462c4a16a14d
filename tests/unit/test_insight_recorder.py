"""Issue 25: the insight recorder and its probe without a whole run where a model built here
is enough: no snapshot while a multi-step call's model is ahead of the reported step, why a
model gets no neuron pictures, the probe under mixed precision and as a compiled graph, a
large model's histograms and probe size, the gradient squares' sums, and a resumed run that
continues its record. When snapshots are taken: test_insight_plan.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.unit.fixtures_runs import tiny_cnn_spec
from tests.unit.test_insight_runs import MOONS, plane_spec, request, train_here
from tfcore.messages import render
from tfcore.rundir import RunPaths, RunWriter, forget_insight, read_insight
from tfcore.training.callbacks import TrainState
from tfcore.training.config import TrainConfig
from tfcore.training.insight import InsightRecorder


def _model(spec: dict):
    from tfcore.data import DatasetRequest, load_dataset
    from tfcore.training.lifecycle import build_model

    bundle = load_dataset(DatasetRequest.from_dict(MOONS))
    return build_model(spec, bundle.x_train), bundle


def _recorder(tmp_path: Path, spec: dict, dataset: dict | None = None, **training):
    from tfcore.data import DatasetRequest, load_dataset
    from tfcore.training.lifecycle import build_model

    bundle = load_dataset(DatasetRequest.from_dict(dataset or MOONS))
    model = build_model(spec, bundle.x_train)
    config = TrainConfig.from_dict(request(spec, **training)["training"])
    notes: list = []
    recorder = InsightRecorder(RunPaths(tmp_path), model, bundle, config, 0, notes.append)
    forget_insight()
    return recorder, notes


def test_no_snapshot_while_the_model_is_ahead_of_the_reported_step(tmp_path) -> None:
    recorder, notes = _recorder(tmp_path, plane_spec(), insight_every=1)
    state = TrainState(total_steps=10, steps_per_epoch=5, batch_size=20)
    recorder.on_train_start(state)
    for step, ahead in ((1, 2), (2, 1), (3, 0), (4, 0)):
        state.step, state.ahead = step, ahead
        recorder.on_batch_end(state, {"loss": 1.0})
    recorder.close()
    assert [r["step"] for r in read_insight(tmp_path).records] == [0, 3, 4] and not notes


def test_why_a_model_gets_no_neuron_pictures(tmp_path) -> None:
    from tests.unit.fixtures_runs import DATASET, tiny_spec

    wide = plane_spec([("h1", 300, "relu"), ("h2", 200, "relu")])
    cases = {"wide": (wide, MOONS), "digits": (tiny_spec(), DATASET)}
    reasons = {}
    for name, (spec, dataset) in cases.items():
        folder = tmp_path / name
        recorder, notes = _recorder(folder, spec, dataset,
                                    loss="sparse_categorical_crossentropy")
        recorder.close()
        meta = read_insight(folder).meta
        assert meta.neurons == () and not notes
        reasons[name] = meta.neurons_reason
    assert reasons["wide"] == {"key": "insight.reason.too_many",
                               "params": {"units": 502, "limit": 400}}
    assert reasons["digits"] == {"key": "insight.reason.not_2d",
                                 "params": {"shape": "(8, 8, 1)"}}
    digits = read_insight(tmp_path / "digits").meta
    assert digits.plane is None and [x.name for x in digits.layers] == \
        ["flatten", "dense", "logits", "softmax"]
    for reason in reasons.values():
        english, chinese = (render(reason["key"], reason["params"], lang)
                            for lang in ("en", "zh"))
        assert english and chinese and english != chinese
        assert all(str(v) in english and str(v) in chinese for v in reason["params"].values())


def test_the_probe_reads_a_mixed_precision_model(tmp_path) -> None:
    """Under ``mixed_float16`` (float16 compute, float32 variables) the probe's gradient
    norms are finite and match the float32 model's with the same weights."""
    import keras

    from tfcore.training.insight_probe import Probe, probe_batch

    spec = plane_spec()
    model32, bundle = _model(spec)
    x, y = probe_batch(bundle.x_train, bundle.y_train)
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        model16, _ = _model(spec)
        model16.set_weights(model32.get_weights())
        norms16, dead16 = Probe(model16, x, y, "sparse_categorical_crossentropy", None,
                                []).gradients()
    finally:
        keras.mixed_precision.set_global_policy("float32")
    norms32, dead32 = Probe(model32, x, y, "sparse_categorical_crossentropy", None,
                            []).gradients()
    assert set(norms16) == {"h1", "h2", "out"} and dead16.keys() == dead32.keys()
    for name, value in norms32.items():
        assert norms16[name] == pytest.approx(value, rel=0.05), name


def test_a_resumed_run_continues_its_record(tmp_path) -> None:
    """Train 10 steps, leave a stale snapshot of step 13 (an attempt killed after it), then
    continue the same run to 20 steps: the record is 0, 5, 10 from the first attempt and
    15, 20 from the second; the stale line and grid are gone, nothing is recorded twice."""
    from tfcore.rundir import InsightWriter

    first = request(steps=10, epochs=1)
    run_dir = train_here(tmp_path, first)
    stale = InsightWriter(run_dir)
    stale.append({"step": 13, "epoch": 2, "grid": True})
    stale.write_grid(13, np.zeros((40, 40)), np.zeros((40, 40), int))
    stale.close()
    body = request(steps=20, epochs=1)
    (run_dir / "run.json").write_text(json.dumps(json.loads((run_dir / "run.json").read_text())
                                                 | {"training": body["training"]}))
    train_here(tmp_path, body, RunWriter(RunPaths(run_dir)))
    insight = read_insight(run_dir)
    assert [r["step"] for r in insight.records] == [0, 5, 10, 15, 20]
    assert insight.grid_steps == (0, 5, 10, 15, 20) and not insight.problems
    assert not (run_dir / "insight" / "grid-000000013.npz").exists()


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_the_probe_measures_in_one_compiled_graph_as_eagerly(kind: str) -> None:
    """The snapshot's forward and backward pass runs as one traced graph (eagerly, its
    op-by-op dispatch made a CNN's snapshot cost several training steps): the graph gives
    the eager pass's gradient norms and dead shares, and reads the variables, not values
    frozen at tracing (after the weights change, it still agrees)."""
    from tfcore.data import DatasetRequest, load_dataset
    from tfcore.training.insight_probe import EAGER_PASSES, Probe, probe_batch
    from tfcore.training.lifecycle import build_model

    if kind == "cnn":
        bundle = load_dataset(DatasetRequest.from_dict({"name": "digits8"}))
        model = build_model(tiny_cnn_spec(), bundle.x_train)
    else:
        model, bundle = _model(plane_spec())
    x, y = probe_batch(bundle.x_train, bundle.y_train)
    probe = Probe(model, x, y, "sparse_categorical_crossentropy", None, [])
    assert probe.compiled is False, "a small model is measured eagerly (no tracing)"
    probe.compiled, probe.tf_hist = None, True             # as a large model's
    probe.passes = EAGER_PASSES                            # ... in a long run
    for _ in range(2):
        graph, hist = probe.gradients(), probe.weights()
        assert probe.compiled not in (None, False), "the pass was not compiled"
        assert probe.tf_hist, "the histograms were not TensorFlow's"
        eager = Probe(model, x, y, "sparse_categorical_crossentropy", None, [])
        norms, dead = eager.gradients()
        assert graph[1] == pytest.approx(dead) and graph[0].keys() == norms.keys()
        for name, value in norms.items():
            assert graph[0][name] == pytest.approx(value, rel=1e-5), name
        numpy_hist = eager.weights()
        sizes = {v.path: int(np.prod(v.shape)) for v in probe.variables}
        assert hist.keys() == numpy_hist.keys() == sizes.keys()
        for path, mine in hist.items():
            theirs = numpy_hist[path]
            assert (mine["lo"], mine["hi"]) == (theirs["lo"], theirs["hi"]), path
            assert sum(mine["counts"]) == sum(theirs["counts"]) == sizes[path], path
            # float32 rounding may put a value on a bin edge into the neighbouring bin
            assert np.abs(np.subtract(mine["counts"], theirs["counts"])).sum() <= 2, path
        model.set_weights([w * 1.5 + 0.01 for w in model.get_weights()])


def test_a_large_model_is_measured_by_compiled_graphs_and_nonfinite_values_counted() -> None:
    """From ``COMPILE_FROM`` parameters the probe's histograms are TensorFlow's ops (they
    count a NaN and an infinity apart, as numpy's do) and its pass runs eagerly for the
    first ``EAGER_PASSES`` passes (a trace costs more than a short run's budget), then as
    one compiled graph that gives the same gradient norms."""
    import keras

    from tfcore.training.insight_probe import COMPILE_FROM, EAGER_PASSES, Probe

    units = COMPILE_FROM // 100 + 1
    model = keras.Sequential([keras.Input((100,)), keras.layers.Dense(units),
                              keras.layers.Dense(3)])
    x = np.random.default_rng(0).normal(size=(32, 100)).astype("float32")
    y = np.arange(32) % 3
    probe = Probe(model, x, y, "sparse_categorical_crossentropy", None, [])
    assert probe.compiled is None and probe.tf_hist
    eager = [probe.gradients()[0] for _ in range(EAGER_PASSES)]
    assert probe.compiled is None and probe.passes == EAGER_PASSES     # no trace yet
    compiled = probe.gradients()[0]
    assert probe.compiled not in (None, False)                         # traced now
    assert eager[0] == eager[-1] and compiled.keys() == eager[0].keys()
    for name, value in eager[0].items():
        assert compiled[name] == pytest.approx(value, rel=1e-5), name
    kernel = model.layers[0].kernel
    values = kernel.numpy()
    values[0, 0], values[0, 1] = np.nan, np.inf
    kernel.assign(values)
    hist = probe.weights()[kernel.path]
    assert probe.tf_hist
    assert hist["nonfinite"] == 2 and sum(hist["counts"]) == values.size - 2
    finite = values[np.isfinite(values)]
    assert (hist["lo"], hist["hi"]) == (float(finite.min()), float(finite.max()))


def test_the_tensorflow_histogram_of_an_empty_or_all_nan_variable_is_the_numpy_one() -> None:
    """A variable of size 0 (its finite min and max are +inf and -inf in the graph) and one
    of NaNs only read as numpy's histogram does: nothing infinite reaches the stats file,
    whose writer refuses NaN and infinity (recording would stop for the run)."""
    from tfcore.training.insight_graph import from_graph
    from tfcore.training.insight_probe import BINS, histogram

    zeros = np.zeros(BINS, np.int32)
    assert from_graph(np.float32(np.inf), np.float32(-np.inf), zeros,
                      np.int32(0)) == histogram(np.zeros(0, np.float32))
    assert from_graph(np.float32(np.inf), np.float32(-np.inf), zeros,   # NaNs: not binned
                      np.int32(3)) == histogram(np.full(3, np.nan, np.float32))


def test_a_large_models_probe_takes_fewer_examples_than_its_batch() -> None:
    """The probe batch follows the run's batch (within 32 to 256) for a small model; a
    model of COMPILE_FROM parameters or more, whose pass runs eagerly, takes 32."""
    from tfcore.model import build_model, get_preset
    from tfcore.training.insight_probe import COMPILE_FROM, MIN_PROBE, is_large, probe_size

    assert [probe_size(b) for b in (8, 50, 100, 1000)] == [32, 50, 100, 256]
    cnn, mlp = build_model(get_preset("cnn")), build_model(get_preset("mlp"))
    assert mlp.count_params() < COMPILE_FROM <= cnn.count_params()
    assert is_large(cnn) and not is_large(mlp)
    assert probe_size(50, is_large(cnn)) == MIN_PROBE == 32
    assert probe_size(50, is_large(mlp)) == 50


def test_gradient_squares_are_summed_in_float32_and_again_in_float64_on_overflow() -> None:
    """sum_of_squares: the float64 sum's value for ordinary gradients; a gradient whose
    squares overflow float32 (1e20 each) still gives its finite float64 sum; NaN stays
    NaN; the loss scale is divided out before squaring."""
    import tensorflow as tf

    from tfcore.training.insight_graph import sum_of_squares

    values = np.random.default_rng(3).normal(size=(3_000, 400)).astype(np.float32)
    want = float(np.sum(np.square(values.astype(np.float64))))
    got = sum_of_squares(tf.constant(values), 1.0)
    assert got.dtype == tf.float64 and float(got) == pytest.approx(want, rel=1e-5)
    assert float(sum_of_squares(tf.constant(values * 1024.0), 1024.0)) == pytest.approx(
        want, rel=1e-5)
    huge = sum_of_squares(tf.fill([1000], tf.constant(1e20, tf.float32)), 1.0)
    assert float(huge) == pytest.approx(1000 * 1e40, rel=1e-6)
    assert np.isnan(float(sum_of_squares(tf.constant([1.0, np.nan], tf.float32), 1.0)))
