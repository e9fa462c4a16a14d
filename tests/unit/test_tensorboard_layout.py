"""A run's ``tb/`` folder as ``keras.callbacks.TensorBoard`` lays it out: a real short run
read back with TensorBoard's own reader (``EventAccumulator``): ``train/`` holds
``batch_<metric>`` at every step, ``epoch_<metric>`` at every epoch and the model graph,
``validation/`` holds ``epoch_<metric>`` and ``evaluation_<metric>_vs_iterations``, and the
final test evaluation is in ``test/``."""

from __future__ import annotations

import math

import pytest

from tests.unit.fixtures_runs import DATASET, tiny_spec, training

pytestmark = pytest.mark.slow
ACC = "sparse_categorical_accuracy"


def _read(folder):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder), size_guidance={"scalars": 0, "tensors": 0})
    events.Reload()
    return events


def _train_examples() -> int:
    from tfcore.data import DatasetRequest, load_dataset

    return len(load_dataset(DatasetRequest.from_dict(DATASET)).x_train)


def _trained_run(tmp_path, loop: str):
    from tfcore.rundir import RunWriter, read_metrics
    from tfcore.training import RunRequest
    from tfcore.training.worker import train_run

    request = {"name": "layout net", "spec": tiny_spec("layout_net"), "dataset": dict(DATASET),
               "training": {**training(steps=0, ckpt_every=100, seed=0), "epochs": 2,
                            "batch_size": 256, "loop": loop, "validate_every": 1,
                            "max_records_per_sec": 1000.0},
               "device": {"kind": "cpu"}}
    writer = RunWriter.create(tmp_path, request)
    fields = train_run(writer.paths, writer, RunRequest.from_dict(request), 1)
    assert fields["state"] == "finished"
    return writer.paths, read_metrics(writer.paths.metrics).records


@pytest.mark.parametrize("loop", ["fit", "custom"])
def test_a_run_writes_keras_tensorboard_layout(tmp_path, loop) -> None:
    paths, records = _trained_run(tmp_path, loop)
    tb = paths.tb_dir
    assert sorted(p.name for p in tb.iterdir()) == ["test", "train", "validation"]
    assert not list(tb.glob("events.out.tfevents.*"))          # nothing at the top level
    train, val, test = _read(tb / "train"), _read(tb / "validation"), _read(tb / "test")
    steps = [r for r in records if r["split"] == "train"]
    per_epoch = max(r["step"] for r in steps) // 2
    for read in (train, val, test):
        print(loop, read.path.rsplit("/", 1)[-1], sorted(read.Tags()["scalars"]),
              "graph" if read.Tags()["graph"] else "", read.Tags()["tensors"])

    assert set(train.Tags()["scalars"]) == {"batch_loss", f"batch_{ACC}",
                                             "batch_samples_per_sec", "epoch_loss",
                                             f"epoch_{ACC}"}
    batch = train.Scalars("batch_loss")
    assert [e.step for e in batch] == [r["step"] for r in steps] == \
        list(range(1, 2 * per_epoch + 1))
    assert all(math.isclose(e.value, r["loss"], rel_tol=1e-6) for e, r in zip(batch, steps))
    epochs = train.Scalars("epoch_loss")
    assert [e.step for e in epochs] == [0, 1]                 # Keras' 0-based epoch index
    n_train = _train_examples()
    for index, event in enumerate(epochs):                    # the mean over the examples
        own = [r for r in steps if r["epoch"] == index + 1]   # (the last batch is smaller)
        weights = [min(256, n_train - (r["step"] - 1 - index * per_epoch) * 256) for r in own]
        mean = sum(r["loss"] * w for r, w in zip(own, weights)) / sum(weights)
        assert math.isclose(event.value, mean, rel_tol=1e-5), (event.value, mean)
    assert train.Tags()["graph"]                              # the op graph
    assert "keras" in train.Tags()["tensors"]                 # the conceptual graph
    assert any(node.op == "MatMul" for node in train.Graph().node)

    vals = [r for r in records if r["split"] == "val"]
    assert set(val.Tags()["scalars"]) == {"epoch_loss", f"epoch_{ACC}",
                                           "evaluation_loss_vs_iterations",
                                           f"evaluation_{ACC}_vs_iterations"}
    assert [(e.step, round(e.value, 5)) for e in val.Scalars("epoch_loss")] == \
        [(r["epoch"] - 1, round(r["loss"], 5)) for r in vals] and len(vals) == 2
    assert [e.step for e in val.Scalars("evaluation_loss_vs_iterations")] == \
        [per_epoch, 2 * per_epoch]
    final = [r for r in records if r["split"] == "test"][0]
    assert [(e.step, round(e.value, 5)) for e in test.Scalars(f"evaluation_{ACC}_vs_iterations")] \
        == [(2 * per_epoch, round(final[ACC], 5))]
