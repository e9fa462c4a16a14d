"""Helpers of the scenario tests (tests/app/test_scenarios_*.py): charts' data, a run
started from the Train page by clicks, and a page check that other pages in progress do not
hold up."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow as pa
from PIL import Image
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import open_page
from tfcore.training import jobs
from tfcore.workspace import default_workspace


def assert_clean(at: AppTest, lang: str = "en") -> None:
    """No exception and no error box (translations are checked by each page's own tests,
    which other engineers' pages in progress do not hold up here)."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def chart_frames(at: AppTest) -> list[pd.DataFrame]:
    """The data of every Altair chart on the page (Streamlit sends it as Arrow tables)."""
    frames = []
    for chart in list(at.get("arrow_vega_lite_chart")) + list(at.get("vega_lite_chart")):
        proto = chart.proto
        blobs = [d.data.data for d in proto.datasets]
        if proto.HasField("data") and proto.data.data:
            blobs.append(proto.data.data)
        frames.extend(pa.ipc.open_stream(io.BytesIO(b)).read_all().to_pandas() for b in blobs)
    return frames


def train_from_page(preset: str, epochs: int | None, *, before=None, timeout: float = 400
                    ) -> tuple[AppTest, str]:
    """Train page: choose the preset, set the epochs (None: keep the form's), let
    ``before(at)`` set the rest, press Train, wait for the worker to finish, rerun."""
    at = open_page("app_pages/train.py", "en")
    at.selectbox(key="train.model.preset").set_value(preset).run()
    if epochs is not None:
        at.number_input(key="train.epochs").set_value(epochs).run()
    if before is not None:
        before(at)
    assert not at.button(key="train.start").disabled, [w.value for w in at.warning]
    at.button(key="train.start").click().run()
    run_id = at.session_state["train.run_id"]
    assert jobs.wait_for(default_workspace().runs, run_id, timeout=timeout) == "finished"
    at.run()
    assert_clean(at, "en")
    return at, run_id


def run_request(run_id: str) -> dict:
    from tfcore.rundir import RunStore

    return dict(RunStore(default_workspace().runs).get(run_id).request)


def image_folders(count: int = 6) -> str:
    """Class folders of JPEG files of mixed sizes in the workspace's uploads."""
    folder = default_workspace().ensure().uploads / "cats_vs_dogs"
    rng = np.random.default_rng(0)
    for label, tint in (("cats", 0), ("dogs", 2)):
        (folder / label).mkdir(parents=True, exist_ok=True)
        for i in range(count):
            pixels = rng.integers(0, 80, (300 + 7 * i, 280, 3), dtype=np.uint8)
            pixels[..., tint] += 150
            Image.fromarray(pixels).save(folder / label / f"{label}.{i}.jpg", quality=90)
    return folder.name
