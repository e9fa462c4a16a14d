"""A run that uses user-written code carries it: the worker copies it into the run folder,
loads it, trains, and records the custom metric like a built-in one (M8 in training)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.fixtures_train import WAIT, train_records
from tfcore.custom import TEMPLATES, TRUSTED_ENV, load_sources, sources_for
from tfcore.model.presets import get_preset
from tfcore.rundir.store import RunStore
from tfcore.training import jobs

pytestmark = pytest.mark.slow


@pytest.fixture()
def trusted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(TRUSTED_ENV, "1")           # the worker inherits it, as from a server
    load_sources({name: TEMPLATES[name].source
                  for name in ("mean_center", "mse_loss", "sparse_accuracy")})
    yield
    load_sources({})


def _digits_request() -> dict:
    spec = get_preset("mlp").to_dict()
    spec["layers"].insert(2, {"name": "centre", "type": "custom.MeanCenter", "config": {}})
    training = {"steps": 6, "batch_size": 50, "metrics": ["SparseCategoricalAccuracy"],
                "ckpt_every": 100}
    code = sources_for({"custom.MeanCenter"}, None, ("SparseCategoricalAccuracy",))
    return {"spec": spec, "dataset": {"name": "digits28"}, "training": training,
            "device": {"kind": "cpu"}, "custom_code": code}


def _house_request() -> dict:
    training = {"steps": 5, "batch_size": 5, "optimizer": "sgd", "learning_rate": 0.01,
                "loss": "MeanSquaredError", "metrics": ["mae"], "ckpt_every": 100}
    return {"spec": get_preset("house_linear").to_dict(), "dataset": {"name": "house_prices"},
            "training": training, "device": {"kind": "cpu"},
            "custom_code": sources_for(set(), "MeanSquaredError", ())}


def test_runs_with_custom_layer_loss_and_metric(tmp_path: Path, trusted) -> None:
    digits = _digits_request()
    assert sorted(digits["custom_code"]) == ["mean_center", "sparse_accuracy"]
    roots = {"digits": tmp_path / "digits", "house": tmp_path / "house"}
    ids = {"digits": jobs.start_run(roots["digits"], digits),
           "house": jobs.start_run(roots["house"], _house_request())}
    for name, root in roots.items():
        state = jobs.wait_for(root, ids[name], timeout=WAIT)
        record = RunStore(root).get(ids[name])
        assert state == "finished", (name, record.status.message)
    folder = roots["digits"] / ids["digits"] / "custom"
    assert (folder / "sparse_accuracy.py").read_text() == TEMPLATES["sparse_accuracy"].source
    assert (folder / "mean_center.py").is_file()
    records = train_records(roots["digits"], ids["digits"])
    assert [r["step"] for r in records] == [1, 2, 3, 4, 5, 6]
    assert all(0.0 <= r["SparseCategoricalAccuracy"] <= 1.0 for r in records)
    house = train_records(roots["house"], ids["house"])
    assert len(house) == 5 and all(r["loss"] >= 0 for r in house)
    assert (roots["house"] / ids["house"] / "custom" / "mse_loss.py").is_file()


def test_a_run_naming_unloaded_code_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(TRUSTED_ENV, "1")
    load_sources({})
    request = {**_house_request(), "custom_code": {}}
    with pytest.raises(Exception) as info:
        jobs.start_run(tmp_path, request)
    assert "MeanSquaredError" in str(info.value)
    assert not any(tmp_path.iterdir()) if tmp_path.exists() else True
