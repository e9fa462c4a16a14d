"""A warm worker handed a run while it still warms up ends the warm-up at its next stage
(issue 23, item 14: a resume soon after a start got the replacement worker mid-warm-up and
waited for its whole warm-up, dataset and traced step included, before its own)."""

from __future__ import annotations

import pytest

import tfcore.data
from tfcore.training import warm


class Loaded(Exception):
    """The warm-up went on to load the default dataset."""


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list:
    seen: list = []

    def load_dataset(request):
        seen.append(request.name)
        raise Loaded

    monkeypatch.setattr(tfcore.data, "load_dataset", load_dataset)
    return seen


def test_a_job_waiting_after_the_imports_ends_the_warm_up(loads: list) -> None:
    asked = []
    warm.warm_up(stop=lambda: asked.append(1) or True)
    assert asked == [1] and loads == []                 # asked once, stopped before the data


def test_without_a_job_the_warm_up_goes_on_to_the_dataset(loads: list) -> None:
    with pytest.raises(Loaded):
        warm.warm_up(stop=lambda: False)
    assert loads == ["digits28"]


def test_the_rehearsal_trains_the_default_run_and_a_job_stops_it_within_steps(
        monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The warm-up's last stage is one epoch of the Train page's default run in a scratch
    folder, deleted after; a job arriving meanwhile stops it at its next step (the run
    handed over waits for a step and the end's save, not for the epoch)."""
    import tempfile

    from tfcore.training.devices import DeviceConfig

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    done = warm.rehearse(DeviceConfig(), 1, stop=lambda: False)
    assert done["state"] == "finished" and done["step"] == done["epoch"] * 26 == 26
    asked: list = []
    stopped = warm.rehearse(DeviceConfig(), 1, stop=lambda: asked.append(1) or len(asked) > 1)
    assert stopped["state"] == "stopped" and 0 < stopped["step"] < 26
    assert list(tmp_path.glob("tflab-warm-*")) == []     # the scratch folders are gone
