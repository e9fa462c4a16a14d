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
