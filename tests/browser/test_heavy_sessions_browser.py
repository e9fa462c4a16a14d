"""Three sessions on one server (issue 28, item 3): while one reads a 19,000-image zip on
the Train page and another opens an oversized model in the builder, a third moves between
pages as a student would. The zip is read in a child process (a pid that is not the
server's, gone once read), so the server neither swells (its resident size grows by less
than 500 MB) nor stops answering: every page the third session opens is drawn, and the
first session's page completes itself with the dataset's sizes. The third session's
menu click -> page drawn times are printed; their p95 is a bench's figure, not a test's
(``bench/bench_sessions.py``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.browser.conftest import TIMEOUT_MS, _cmdline, click_and_wait, wait_idle
from tests.unit.fixtures_hostile_files import image_zip
from tfcore.model import Draft, from_dict, get_preset, new_draft_id, write_draft
from tfcore.procs import alive
from ui.common.i18n import catalog

EN = catalog("en")
PAGES = ("tensors", "builder", "runs", "timing", "lessons", "placement")
MAX_GROWTH_MB = 500


def _server_pid(url: str) -> int:
    port = url.rsplit(":", 1)[1]
    for entry in Path("/proc").iterdir():
        line = _cmdline(int(entry.name)) + " " if entry.name.isdigit() else ""
        if "streamlit run app.py" in line and f"--server.port {port} " in line:
            return int(entry.name)
    raise AssertionError(f"no streamlit server on port {port}")


def _resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def _oversized_draft(root: Path) -> str:
    """A builder draft of the MLP with a 1,000,000-unit hidden layer (795 million
    parameters): refused by the symbolic size check, never built."""
    data = get_preset("mlp").to_dict()
    for layer in data["layers"]:
        if layer["config"].get("units") == 100:
            layer["config"]["units"] = 1_000_000
    draft_id = new_draft_id()
    write_draft(root, draft_id, Draft(from_dict(data), ""))
    return draft_id


def test_a_third_session_is_served_while_one_reads_a_big_zip_and_one_an_oversized_model(
        server: str, browser, page, session_workspace: Path) -> None:
    image_zip(session_workspace, 19_000, "crowd")
    draft_id = _oversized_draft(session_workspace)
    pid = _server_pid(server)
    reader = browser.new_context(viewport={"width": 1280, "height": 800})
    builder = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        first = reader.new_page()
        first.set_default_timeout(TIMEOUT_MS)
        first.goto(f"{server}/train?lang=en&upload=images:crowd19000.zip")
        bar = first.locator("[data-testid='stProgress']").filter(
            has_text=EN["data.decode.running"].split("{name}")[0])
        bar.first.wait_for()                                   # reading, apart
        before = _resident_mb(pid)
        [folder] = [p for p in (session_workspace / "cache" / "decode").iterdir()
                    if json.loads((p / "request.json").read_text())["request"]["name"]
                    == "upload:images:crowd19000.zip"]
        child = json.loads((folder / "job.json").read_text())["pid"]
        assert child != pid

        second = builder.new_page()
        second.set_default_timeout(TIMEOUT_MS)
        second.goto(f"{server}/builder?lang=en&draft={draft_id}")
        limit = EN["spec.problem.too_many_params"].split("{total:,}")[0].split("}")[-1]
        second.get_by_text(limit.strip(), exact=False).first.wait_for()

        times, peak = [], before
        page.goto(f"{server}/?lang=en")
        wait_idle(page)
        while bar.count() or len(times) < len(PAGES):
            name = PAGES[len(times) % len(PAGES)]
            link = page.locator("[data-testid='stSidebarNav'] a").filter(
                has_text=EN[f"nav.{name}"]).first
            began = time.monotonic()
            click_and_wait(page, link, page.locator(f"[data-testid='stSidebarNav'] "
                                                    f"a[href$='/{name}'][aria-current='page']"))
            times.append(time.monotonic() - began)
            peak = max(peak, _resident_mb(pid))
            assert page.locator("[data-testid='stException']").count() == 0, name
            assert len(times) < 400, "the zip was still being read after 400 page visits"
        first.get_by_text("classes: 2").first.wait_for()      # it completed itself
        began = time.monotonic()               # the child exits once it has answered
        while alive(child) and time.monotonic() - began < TIMEOUT_MS / 1000:
            time.sleep(0.1)
        assert not alive(child), "the reading child outlived its answer"
        assert first.locator("[data-testid='stException']").count() == 0
        assert peak - before < MAX_GROWTH_MB, (before, peak)
        times.sort()
        print(f"third session: {len(times)} pages while the zip was read; click -> drawn "
              f"p50 {times[len(times) // 2]:.2f} s, p95 {times[int(0.95 * (len(times) - 1))]:.2f} s, "
              f"server resident {before:.0f} -> peak {peak:.0f} MB")
    finally:
        reader.close()
        builder.close()
