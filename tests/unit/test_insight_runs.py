"""Issue 25: the insight recorder on real runs (``insight/`` of a run directory).

The plane grid at a step is the model of that step's checkpoint predicting the plane (the
fit loop with multi-step graph calls, the GradientTape loop and MirroredStrategy over two
logical CPUs); every histogram's counts sum to its variable's size and TensorBoard's own
reader sees them as ``<variable>/histogram``; auto mode records the start and the last step
and keeps its cost within the budget; a deep sigmoid MLP shows the vanishing gradient a ReLU
MLP with He initialization does not; a resumed run continues the record; insight off writes
nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tfcore.rundir import RunWriter, forget_insight, read_grid, read_insight

pytestmark = pytest.mark.slow
MOONS = {"name": "moons", "options": {"n_samples": 200, "noise": 0.1}, "val_fraction": 0.1,
         "test_fraction": 0.2, "seed": 0}
WAIT = 420


def plane_spec(hidden=(("h1", 8, "relu"), ("h2", 6, "tanh")), init: str | None = None,
               out: int = 2) -> dict:
    layers = [{"name": name, "type": "Dense",
               "config": {"units": units, "activation": act}
               | ({"kernel_initializer": init} if init else {})}
              for name, units, act in hidden]
    layers.append({"name": "out", "type": "Dense",
                   "config": {"units": out, "activation": "softmax"}})
    return {"format": 1, "name": "plane_net", "kind": "sequential",
            "inputs": [{"name": "x", "shape": [2], "dtype": "float32"}],
            "layers": layers, "outputs": []}


def request(spec: dict | None = None, **training) -> dict:
    base = {"epochs": 4, "batch_size": 20, "loop": "fit", "ckpt_every": 5, "keep": 20,
            "insight_every": 5, "seed": 3, "loss": "sparse_categorical_crossentropy",
            "metrics": ["sparse_categorical_accuracy"], "learning_rate": 0.05}
    return {"name": "insight", "spec": spec or plane_spec(), "dataset": dict(MOONS),
            "training": base | training, "device": {"kind": "cpu"}}


def train_here(root: Path, body: dict, writer: RunWriter | None = None) -> Path:
    """Train ``body`` in this process (the worker's lifecycle); returns the run folder."""
    from tfcore.training import RunRequest
    from tfcore.training.worker import train_run

    writer = writer or RunWriter.create(root, body)
    fields = train_run(writer.paths, writer, RunRequest.from_dict(body), 1)
    assert fields["state"] == "finished"
    forget_insight()
    return writer.paths.root


def expected_grid(model, meta) -> tuple[np.ndarray, np.ndarray, dict]:
    """What the plane looks like to ``model``: class and its probability over the grid
    (rows follow y, columns x), and each drawn layer's units over the small grid."""
    gx, gy = meta.plane.axes()
    mesh = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2).astype(np.float32)
    probs = np.asarray(model(mesh, training=False))
    size = meta.plane.size
    small = meta.plane.neuron_size
    sx, sy = meta.plane.axes(small)
    h = np.stack(np.meshgrid(sx, sy), axis=-1).reshape(-1, 2).astype(np.float32)
    units = {}
    for layer in model.layers:
        h = layer(h, training=False)
        units[layer.name] = np.asarray(h).T.reshape(-1, small, small)
    return probs.argmax(1).reshape(size, size), probs.max(1).reshape(size, size), units


def check_grids_match_checkpoints(run_dir: Path) -> list[int]:
    """Every plane grid at a checkpoint step equals that checkpoint's model; returns the
    steps compared."""
    from tfcore.runs import list_checkpoints, restore_run

    insight = read_insight(run_dir)
    assert insight.recorded and not insight.problems
    meta = insight.meta
    saved = {entry.number for entry in list_checkpoints(run_dir).entries}
    compared = []
    for step in insight.grid_steps:
        if step not in saved:
            continue
        grid, problem = read_grid(run_dir, step, meta)
        assert problem is None
        model = restore_run(run_dir, step, require_complete=True).model
        cls, conf, units = expected_grid(model, meta)
        assert np.abs(grid.conf - conf).max() < 2e-3, step         # float16 on disk
        close = np.abs(conf - 0.5) < 2e-3                           # a tie in float16
        assert (grid.cls == cls)[~close].all(), step
        for name in meta.neurons:
            np.testing.assert_allclose(grid.neurons[name], units[name], atol=5e-3,
                                       rtol=2e-3)
            kernel = model.get_layer(name).kernel.numpy()
            np.testing.assert_allclose(grid.kernels[name], kernel, atol=2e-3, rtol=2e-3)
        compared.append(step)
    return compared


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("insight")
    return {loop: train_here(root, request(loop=loop)) for loop in ("fit", "custom")}


@pytest.mark.parametrize("loop", ["fit", "custom"])
def test_the_grid_at_a_step_is_that_steps_checkpoint_predicting_the_plane(trained,
                                                                          loop) -> None:
    run_dir = trained[loop]
    insight = read_insight(run_dir)
    steps = [r["step"] for r in insight.records]
    total = json.loads((run_dir / "status.json").read_text())["step"]
    assert steps == [0, 5, 10, 15, 20, 25, total] and total == 28
    assert check_grids_match_checkpoints(run_dir) == [5, 10, 15, 20, 25, 28]
    meta = insight.meta
    assert meta.neurons == ("h1", "h2", "out") and meta.neurons_reason is None
    assert meta.plane.output == "classes" and meta.plane.class_names == ("moon A", "moon B")
    assert len(meta.plane.points) == 40 and meta.probe == 32      # batch 20: the minimum


@pytest.mark.parametrize("loop", ["fit", "custom"])
def test_histograms_sum_to_each_variable_and_tensorboard_reads_them(trained, loop) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from tfcore.runs import restore_run

    run_dir = trained[loop]
    records = read_insight(run_dir).records
    sizes = {v.path: int(np.prod(v.shape))
             for v in restore_run(run_dir, require_complete=True).model.trainable_variables}
    assert sorted(sizes) == ["h1/bias", "h1/kernel", "h2/bias", "h2/kernel", "out/bias",
                             "out/kernel"]
    for item in records:
        assert {k: sum(v["counts"]) for k, v in item["hist"].items()} == sizes
        assert all(len(v["counts"]) == 30 for v in item["hist"].values())
        assert set(item["grad_norm"]) == {"h1", "h2", "out"} and set(item["dead"]) == {"h1"}
    events = EventAccumulator(str(run_dir / "tb" / "train"), size_guidance={"tensors": 0})
    events.Reload()
    tags = {f"{path}/histogram" for path in sizes}
    assert tags <= set(events.Tags()["tensors"])
    for path, size in sizes.items():
        seen = events.Tensors(f"{path}/histogram")
        assert [e.step for e in seen] == [r["step"] for r in records]
        for event, item in zip(seen, records):
            table = np.frombuffer(event.tensor_proto.tensor_content, "<f8").reshape(-1, 3)
            assert table[:, 2].sum() == size
            assert table[:, 2].tolist() == item["hist"][path]["counts"]
            assert table[0, 0] == pytest.approx(item["hist"][path]["lo"])
        metadata = events.SummaryMetadata(f"{path}/histogram")
        assert metadata.plugin_data.plugin_name == "histograms"


def test_insight_off_writes_no_insight_folder(tmp_path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = train_here(tmp_path, request(insight=False, epochs=1))
    assert not (run_dir / "insight").exists()
    assert not read_insight(run_dir).recorded
    events = EventAccumulator(str(run_dir / "tb" / "train"), size_guidance={"tensors": 0})
    events.Reload()
    assert not [t for t in events.Tags()["tensors"] if t.endswith("/histogram")]


def test_auto_mode_records_the_start_and_the_last_step(tmp_path) -> None:
    run_dir = train_here(tmp_path, request(insight_every=0, loop="custom", epochs=6,
                                           ckpt_every=100))
    records = read_insight(run_dir).records
    steps = [r["step"] for r in records]
    assert steps[0] == 0 and steps[-1] == 42 and steps == sorted(set(steps))
    assert all(r["grid"] and r["cost"] > 0 for r in records)
    assert read_insight(run_dir).meta.every == 0


def test_a_short_unpaced_auto_run_on_circles_records_several_frames(tmp_path) -> None:
    """Playground on circles for 20 epochs, unpaced, insight in auto mode: a run of a few
    seconds with the Train page's defaults otherwise. The probe's one-off warm-up counts in
    the whole run's 3 % but is spread over it, not paid before the next frame, so the
    boundary is recorded at several steps between the start and the end, one already in
    the run's first half (with the warm-up paid first, its cost held the next frame back
    until late in the run, or to its end), and the
    snapshots the plan chose (all but the last step's, which is always taken and whose cost
    the plan reserved as the one before it) stay within the budget of the run's time."""
    from tfcore.model import get_preset
    from tfcore.training.insight import BUDGET

    spec = json.loads(get_preset("playground").to_json())
    body = {"name": "short", "spec": spec, "dataset": {"name": "circles"},
            "training": {"epochs": 20, "insight_every": 0}, "device": {"kind": "cpu"}}
    run_dir = train_here(tmp_path, body)
    records = read_insight(run_dir).records
    elapsed = json.loads((run_dir / "status.json").read_text())["elapsed"]
    steps = [r["step"] for r in records]
    cost = sum(r["cost"] for r in records)
    print(f"{len(steps)} frames at {steps} in {elapsed:.2f} s, their cost {cost:.3f} s")
    assert steps[0] == 0 and steps == sorted(set(steps)) and all(r["grid"] for r in records)
    # Start, end, and between them as many as the budget pays for at the dearest frame's
    # cost, two at least when it pays for four (idle this machine records 5 to 7 frames; on
    # a busy one a frame may cost 0.2 s of an 11 s run, and the budget pays for one between).
    affordable = int(BUDGET * elapsed / max(r["cost"] for r in records))
    assert len(steps) >= min(4, max(3, affordable))
    # Besides step 0, at least one frame in the run's first half (on a busy machine a frame's
    # cost may space the next ones out, but never to the run's second half).
    assert len([s for s in steps if 0 < s <= steps[-1] / 2]) >= 1
    # The plan decides before a snapshot's cost is known (it expects the last one's): on a
    # busy machine one snapshot may take longer than that, so one snapshot may overshoot.
    chosen = [r["cost"] for r in records[:-1]]
    assert sum(chosen) - max(chosen) <= BUDGET * elapsed


def test_the_start_snapshot_is_the_probes_first_pass(tmp_path, monkeypatch) -> None:
    """One forward and backward pass per recorded snapshot: the probe's first pass (its
    one-off warm-up) is the start snapshot. A separate warm-up pass measured the step-0
    model a second time, a third of the CNN bench's insight cost."""
    from tfcore.training.insight_probe import Probe

    passes = []
    measured = Probe._measured
    monkeypatch.setattr(Probe, "_measured",
                        lambda self: passes.append(1) or measured(self))
    run_dir = train_here(tmp_path, request(epochs=1))
    steps = [r["step"] for r in read_insight(run_dir).records]
    assert steps == [0, 5, 7] and len(passes) == len(steps)


def _first_layer_share(spec: dict, tmp_path: Path) -> tuple[float, float]:
    run_dir = train_here(tmp_path, request(spec, epochs=1, steps=1, insight_every=1,
                                           learning_rate=0.001))
    start = read_insight(run_dir).records[0]
    assert start["step"] == 0
    norms = start["grad_norm"]
    return norms["h1"], norms["h1"] / norms["out"]


def test_a_deep_sigmoid_mlp_shows_the_vanishing_gradient(tmp_path) -> None:
    """Six sigmoid layers (Glorot init): the first layer's gradient is a small fraction of
    the last one's; the same stack with ReLU and He init keeps it of the same order."""
    depth = [(f"h{i}", 16, None) for i in range(1, 7)]
    sigmoid = plane_spec([(n, u, "sigmoid") for n, u, _ in depth])
    relu = plane_spec([(n, u, "relu") for n, u, _ in depth], init="he_normal")
    sig_first, sig_share = _first_layer_share(sigmoid, tmp_path)
    relu_first, relu_share = _first_layer_share(relu, tmp_path)
    print(f"first-layer gradient norm: sigmoid {sig_first:.3g} ({sig_share:.3g} of the "
          f"output layer's), relu+he {relu_first:.3g} ({relu_share:.3g})")
    assert sig_first < relu_first / 10
    assert sig_share < 0.01 < relu_share


def test_a_paced_auto_run_snapshots_only_models_of_their_step(tmp_path, monkeypatch) -> None:
    """A paced run (one step per call) with a checkpoint at every step: whatever steps the
    auto plan picks, each grid is that step's checkpoint predicting the plane. (The budget
    is raised so a short test run takes snapshots between its start and end.)"""
    from tfcore.training import insight

    monkeypatch.setattr(insight, "BUDGET", 1.0)
    run_dir = train_here(tmp_path, request(insight_every=0, steps=16, epochs=1,
                                           steps_per_second=20, ckpt_every=1, keep=50))
    steps = [r["step"] for r in read_insight(run_dir).records]
    assert steps[0] == 0 and steps[-1] == 16 and len(steps) > 3
    assert check_grids_match_checkpoints(run_dir) == steps[1:]


def test_mirrored_strategy_over_two_logical_cpus_records_the_same_grids(tmp_path) -> None:
    """The worker process under MirroredStrategy (two logical CPUs) records insight from
    the mirrored model; its grids equal the checkpoints' models, as on one device."""
    from tfcore.training import jobs

    body = request(loop="fit", epochs=2) | {"device": {"kind": "mirrored",
                                                         "logical_devices": 2}}
    run_id = jobs.start_run(tmp_path, body)
    state = jobs.wait_for(tmp_path, run_id, timeout=WAIT)
    status = json.loads((tmp_path / run_id / "status.json").read_text())
    assert state == "finished", status.get("traceback")
    assert status["replicas"] == 2 and not status.get("notes")
    forget_insight()
    steps = [r["step"] for r in read_insight(tmp_path / run_id).records]
    assert steps == [0, 5, 10, 14]
    assert check_grids_match_checkpoints(tmp_path / run_id) == [5, 10, 14]


def test_the_playground_preset_draws_every_neuron_on_circles(tmp_path) -> None:
    """The one-click 2-D demo: the playground preset fits the circles data set as it is
    and every one of its units is drawn on the plane."""
    from tfcore.model import get_preset

    spec = json.loads(get_preset("playground").to_json())
    body = request(spec, epochs=1) | {"dataset": dict(MOONS, name="circles")}
    meta = read_insight(train_here(tmp_path, body)).meta
    assert meta.neurons == ("hidden", "hidden_2", "out")
    assert meta.plane is not None and meta.plane.output == "classes"
    assert [meta.layer(n).units for n in meta.neurons] == [8, 8, 2]
    assert meta.plane.class_names == ("inside", "outside")          # translated on a page:
    assert [text["key"] for text in meta.plane.class_texts] == [
        "data.class.circles.0", "data.class.circles.1"]
