"""The end of a run on the Train page (issue 23 item 12): the confusion matrix and the
decision boundary of a finished run on a 2-D set name their legends in the page's language
("count" and "class" read in English on the Chinese page), and the boundary colours its
classes by name as the live one does."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP
from tests.app.insight_fixtures import make_insight_run
from tfcore.workspace import default_workspace
from ui.common import CLASS_COLORS
from ui.common.i18n import catalog

RUN = "results-run"


def _finished_run_with_analysis() -> None:
    run_dir = make_insight_run(default_workspace().ensure().runs, RUN)
    axis = np.linspace(-1.5, 1.5, 6)
    grid = (np.add.outer(axis ** 2, axis ** 2) > 1).astype(np.int64)
    points = np.array([[0.0, 0.1], [1.2, -1.0], [-0.2, 0.3]], np.float32)
    np.savez_compressed(run_dir / "analysis.npz", confusion=np.array([[38, 2], [0, 40]]),
                        class_names=np.array(["inside", "outside"]),
                        mis_images=np.zeros((0,), np.float32), mis_true=np.array([0]),
                        mis_pred=np.array([1]), grid_x=axis, grid_y=axis, grid_class=grid,
                        points=points, point_labels=np.array([0, 1, 0]))


def _specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in
            list(at.get("vega_lite_chart")) + list(at.get("arrow_vega_lite_chart"))]


def _colors(spec: dict) -> list[dict]:
    return [layer.get("encoding", {}).get("color", {}) for layer in spec.get("layer", [spec])]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_end_of_run_charts_speak_the_pages_language(lang: str) -> None:
    words = catalog(lang)
    _finished_run_with_analysis()
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"] = lang
    at.session_state["train.run_id"] = RUN
    at.run()
    at.switch_page("app_pages/train.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    colors = [c for spec in _specs(at) for c in _colors(spec)]
    titles = {c.get("title") for c in colors}
    assert words["train.count"] in titles and words["train.class"] in titles
    ended = [c for c in colors if c.get("title") == words["train.class"]
             and c["scale"]["domain"] == ["inside", "outside"]]   # not the live boundary's
    assert len(ended) == 2                                        # the regions and the points
    assert all(c["scale"]["range"] == list(CLASS_COLORS[:2]) for c in ended)
    assert "count" not in titles or lang == "en"
