"""T4 in a real browser: "Open in TensorBoard" on the Runs page starts the real
TensorBoard on 127.0.0.1 and its link opens the run's loss curve there."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import click_and_wait, fill_and_wait, wait_idle
from tests.unit.fixtures_runs import make_run
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
NAME = "browser_tensorboard_probe"


@pytest.fixture(scope="module")
def run_id(session_workspace: Path) -> str:
    """A run whose tb/ folder is laid out as Keras' TensorBoard callback lays it: an
    ``epoch_loss`` for three epochs in ``train/`` and in ``validation/``."""
    import tensorflow as tf

    run_id = make_run(default_workspace().ensure().runs, name=NAME, steps=4, ckpt_every=4)
    for sub, losses in (("train", (0.9, 0.5, 0.25)), ("validation", (1.0, 0.7, 0.5))):
        writer = tf.summary.create_file_writer(
            str(default_workspace().runs / run_id / "tb" / sub))
        with writer.as_default():
            for epoch, loss in enumerate(losses):
                tf.summary.scalar("epoch_loss", loss, step=epoch)
        writer.close()
    return run_id


def test_open_in_tensorboard_links_to_the_run(server: str, page, run_id: str,
                                              tmp_path: Path) -> None:
    page.goto(f"{server}/runs?lang=en")
    wait_idle(page)
    fill_and_wait(page, page.get_by_label(EN["runs.filter.text"]), NAME,
                  expect=page.get_by_role("tab", name=EN["runs.tab.config"], exact=True).first)
    link = page.get_by_role("link", name=EN["tensorboard.link"]).first
    click_and_wait(page, page.get_by_role("button", name=EN["tensorboard.open"]).first,
                   expect=link)
    href = link.get_attribute("href")
    assert href.startswith("http://127.0.0.1:") and f"runFilter=%5E{NAME}%28" in href
    board = page.context.new_page()
    try:
        board.goto(href)
        for sub in ("train", "validation"):           # listed by the run's name, both sub-runs
            board.get_by_text(f"{NAME}/{sub}").first.wait_for(timeout=180_000)
        board.get_by_text("epoch_loss", exact=True).first.wait_for(timeout=180_000)  # one card
        board.screenshot(path=str(tmp_path / "tensorboard.png"), full_page=True)
        print("screenshot", tmp_path / "tensorboard.png")
    finally:
        board.close()
