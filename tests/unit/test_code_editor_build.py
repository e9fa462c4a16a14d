"""The shipped code editor build matches its sources (``make code-editor`` writes
``dist/source-hash.txt`` with ui/common/frontend-tools/source-hash.js) and loads nothing from the
network: its bundle names no http(s) address but the SVG namespace."""

from __future__ import annotations

import re

from tests.unit.test_canvas_build import source_hash
from ui.custom.code_editor import DIST, FRONTEND


def test_the_shipped_dist_was_built_from_these_sources() -> None:
    recorded = (DIST / "source-hash.txt").read_text(encoding="utf-8").strip()
    assert recorded == source_hash(FRONTEND), (
        "ui/custom/frontend changed since dist/ was built: run `make code-editor` and "
        "commit dist/")
    assert (DIST / "editor.js").stat().st_size > 100_000
    assert 'src="./editor.js"' in (DIST / "index.html").read_text(encoding="utf-8")


def test_the_editor_fetches_nothing_at_run_time() -> None:
    found = set()
    for path in DIST.iterdir():
        found |= set(re.findall(r"https?://[\w./-]+", path.read_text(encoding="utf-8")))
    assert found <= {"http://www.w3.org/2000/svg"}, found
