"""A run's ``tb/`` folder as ``keras.callbacks.TensorBoard`` lays it out: a real short run
read back with TensorBoard's own reader (``EventAccumulator``): ``train/`` holds
``batch_<metric>`` at every step, ``epoch_<metric>`` at every epoch and the model graph,
``validation/`` holds ``epoch_<metric>`` and ``evaluation_<metric>_vs_iterations``, and the
final test evaluation is in ``test/``."""

from __future__ import annotations

import math
import urllib.request

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


def _old_layout_run(root, name: str) -> str:
    """A run written before the Keras layout: flat ``train/loss`` and ``val/loss`` tags in
    event files directly in ``tb/``."""
    import tensorflow as tf

    from tfcore.rundir import RunWriter

    writer = RunWriter.create(root, {"name": name})
    tf_writer = tf.summary.create_file_writer(str(writer.paths.tb_dir))
    with tf_writer.as_default():
        for step, loss in enumerate((0.9, 0.5, 0.25), start=1):
            tf.summary.scalar("train/loss", loss, step=step)
        tf.summary.scalar("val/loss", 0.6, step=3)
    tf_writer.close()
    return writer.paths.run_id


def test_tensorboard_lists_runs_by_name_with_their_sub_runs(tmp_path) -> None:
    from tests.unit.fixtures_train import wait_until
    from tfcore.runs import open_tensorboard, rename_run, run_url, stop_tensorboard
    from tfcore.runs.tensorboard import fetch_json

    root = tmp_path / "runs"
    root.mkdir()
    paths, _ = _trained_run(root, "custom")
    old_id = _old_layout_run(root, "old net")
    seen: dict = {}

    def listed(*names: str) -> bool:
        seen["runs"] = fetch_json(f"{info.url}/data/runs") or []
        seen["tags"] = fetch_json(f"{info.url}/data/plugin/scalars/tags") or {}
        return set(names) <= set(seen["runs"]) and all(seen["tags"].get(n) for n in names)

    try:
        info = open_tensorboard(root)
        wait_until(lambda: listed("layout net/train", "layout net/validation",
                                  "layout net/test", "old net"), timeout=180, poll=0.5)
        print("runs", seen["runs"])
        for run in sorted(seen["tags"]):
            print(run, sorted(seen["tags"][run]))
        assert not any(paths.run_id in run or old_id in run for run in seen["runs"])
        tags = seen["tags"]
        assert {"batch_loss", "epoch_loss"} <= set(tags["layout net/train"])
        assert {"epoch_loss", "evaluation_loss_vs_iterations"} <= \
            set(tags["layout net/validation"])
        assert set(tags["old net"]) == {"train/loss", "val/loss"}     # an old run opens
        old = fetch_json(f"{info.url}/data/plugin/scalars/scalars?run=old%20net&tag=train/loss")
        assert [(step, round(value, 3)) for _, step, value in old] == \
            [(1, 0.9), (2, 0.5), (3, 0.25)]
        graphs = fetch_json(f"{info.url}/data/plugin/graphs/info") or {}
        assert graphs["layout net/train"]["run_graph"]
        assert graphs["layout net/train"]["tags"]["keras"]["conceptual_graph"]
        for query, node in (("", "MatMul"), ("&tag=keras&conceptual=true", "keras_class")):
            with urllib.request.urlopen(f"{info.url}/data/plugin/graphs/graph?run=layout"
                                        f"%20net/train{query}", timeout=60) as answer:
                assert node in answer.read().decode()   # served by TensorBoard's TF stub
        assert "runFilter=%5Elayout%20net%28%2F%7C%24%29" in run_url(info, paths.root)

        later = _old_layout_run(root, "later net")        # added while TensorBoard runs
        rename_run(root, old_id, "renamed net")            # and one renamed
        wait_until(lambda: listed("later net", "renamed net")
                   and "old net" not in seen["runs"], timeout=180, poll=0.5)
        assert open_tensorboard(root).pid == info.pid          # no restart
        assert later not in str(seen["runs"])
    finally:
        stop_tensorboard()
