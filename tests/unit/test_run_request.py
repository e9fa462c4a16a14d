"""Issue 22, item 4: the run request is one typed value. ``RunRequest.from_dict`` checks every
field (a located RunError naming the field), reads run.json files written before it existed
(unknown keys ignored, missing optional ones defaulted, the old ``device.cluster`` moved) and
``to_dict`` gives back the run.json layout the job manager has always written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.fixtures_runs import tiny_spec
from tests.unit.fixtures_runs import training as tiny_training
from tfcore.rundir import RUN_FORMAT
from tfcore.data import DatasetRequest
from tfcore.errors import DatasetError, DeviceError, RunError
from tfcore.training import ClusterConfig, DeviceConfig, RunRequest


def _form_request() -> dict:
    """What the Train page sends (complete sections), with initial weights and code."""
    return {"name": "tiny", "spec": tiny_spec(),
            "dataset": DatasetRequest(name="digits8").to_dict(),
            "training": tiny_training(steps=2, ckpt_every=10, seed=3),
            "device": DeviceConfig().to_dict(),
            "initial_weights": "exports/a/a-ckpt-8.weights.h5",
            "custom_code": {"my_loss": "X = 1\n"}}


def test_a_complete_request_round_trips_unchanged() -> None:
    body = _form_request()
    request = RunRequest.from_dict(body)
    assert request.to_dict() == body
    assert request.dataset == DatasetRequest(name="digits8")
    assert request.device == DeviceConfig() and request.cluster is None
    assert request.initial_weights == "exports/a/a-ckpt-8.weights.h5"
    assert request.train_config().steps == 2 and request.model_spec().name == "tiny"
    with pytest.raises(TypeError):
        request.spec["name"] = "changed"                  # read-only, like the dataclass


def test_an_old_run_json_is_read_with_defaults_and_unknown_keys_ignored() -> None:
    old = {"created": "2026-01-01T10:00:00+00:00", "versions": {"tensorflow": "2.21.0"},
           "format": 1, "something_newer": [1, 2], "spec": tiny_spec(),
           "training": {"seed": 3}, "initial_weights": None}
    request = RunRequest.from_dict(old)
    assert request.dataset.name == "digits28" and request.device.kind == "cpu"
    assert request.initial_weights is None and request.custom_code is None
    body = request.to_dict()
    assert set(body) == {"spec", "dataset", "training", "device"}
    assert RunRequest.from_dict(body) == request


def test_sparse_sections_are_written_back_as_they_came() -> None:
    """A section the caller gave sparse stays sparse in run.json (the layout and the
    content the job manager has always written); a replaced one is written complete."""
    from dataclasses import replace

    body = {"spec": tiny_spec(), "dataset": {"name": "digits8"}, "device": {"kind": "cpu"},
            "training": {"seed": 3}}
    request = RunRequest.from_dict(body)
    assert request.to_dict() == body
    assert request.device == DeviceConfig() and request.dataset == DatasetRequest("digits8")
    moved = replace(request, device=DeviceConfig(kind="mirrored", logical_devices=2))
    assert moved.to_dict()["device"] == moved.device.to_dict()
    assert moved.to_dict()["dataset"] == {"name": "digits8"}


def test_the_old_cluster_layout_inside_the_device_is_moved() -> None:
    body = {"spec": tiny_spec(), "device": {"kind": "cluster", "cluster": {"workers": 3}}}
    request = RunRequest.from_dict(body)
    assert request.is_cluster and request.cluster == ClusterConfig.from_dict({"workers": 3})
    assert request.to_dict()["device"] == {"kind": "cluster"}
    assert request.to_dict()["cluster"] == request.cluster.to_dict()


@pytest.mark.parametrize("field, value, error, key", [
    ("spec", None, RunError, "train.err.no_spec"),
    ("spec", "mlp", RunError, "train.err.no_spec"),
    ("training", [1], RunError, "train.err.request_object"),
    ("dataset", "digits8", RunError, "train.err.request_object"),
    ("device", 3, RunError, "train.err.request_object"),
    ("initial_weights", 5, RunError, "train.err.request_text"),
    ("name", ["a"], RunError, "train.err.request_text"),
    ("custom_code", {"a": 1}, RunError, "train.err.custom_code_map"),
    ("device", {"kind": "tpu"}, DeviceError, "train.err.choice"),
    ("dataset", {"options": {}}, DatasetError, None),
])
def test_a_bad_field_is_refused_with_its_key_and_name(field, value, error, key) -> None:
    body = _form_request() | {field: value}
    with pytest.raises(error) as caught:
        RunRequest.from_dict(body)
    if key is not None:
        assert caught.value.key == key
    if key and key.startswith("train.err.request"):
        assert caught.value.params == {"field": field, "value": repr(value)}
        assert caught.value.message.endswith(f"Received: {value!r}")


def test_the_job_manager_writes_the_same_layout(tmp_path: Path, monkeypatch) -> None:
    from tfcore.training import jobs

    monkeypatch.setattr(jobs, "reconcile", lambda root, exclude_pid=None: None)  # no worker
    body = _form_request()
    body.pop("custom_code")
    run_id = jobs.start_run(tmp_path, body | {"created": "ignored", "junk": 1})
    written = json.loads((tmp_path / run_id / "run.json").read_text())
    assert set(written) == set(body) | {"created", "versions", "format"}
    assert written["format"] == RUN_FORMAT
    assert {k: written[k] for k in body} == body
    assert RunRequest.from_dict(written).to_dict() == body


def test_a_run_folder_written_before_the_typed_request_still_trains(tmp_path: Path) -> None:
    """A run.json as the job manager wrote it until now (sparse sections, created, versions),
    read by the worker's path: the run trains and finishes."""
    from tfcore.rundir import RunPaths, RunWriter
    from tfcore.training.worker import train_run

    old = {"name": "tiny", "spec": tiny_spec(), "dataset": {"name": "digits8"},
           "training": tiny_training(steps=2, ckpt_every=10, seed=3),
           "device": {"kind": "cpu"}, "versions": {"tensorflow": "2.21.0"},
           "created": "2026-01-01T10:00:00+00:00"}
    writer = RunWriter.create(tmp_path, old)
    paths = RunPaths(writer.paths.root)
    request = RunRequest.from_dict(json.loads(paths.run_json.read_text()))
    fields = train_run(paths, writer, request, 1)
    assert fields["state"] == "finished" and fields["step"] == 2
