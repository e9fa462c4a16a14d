"""Uploads are decoded in a child process with memory and time limits, progress and a
Cancel (issue 28, item 3): the result matches an in-process load, a refusal keeps its
location, Cancel kills the child and is remembered, a limit stops the child with a message
that names it, and a damaged or silent job folder is reported, never trusted."""

from __future__ import annotations

import io
import os
import signal
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.unit.fixtures_hostile_files import image_zip
from tfcore.data.base import DatasetInfo, DatasetRequest
from tfcore.data.loader import clear_cache, load_dataset
from tfcore.data.offload import DecodeJob, JobState, decoded_apart
from tfcore.errors import DatasetError
from tfcore.procs import alive
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

DEADLINE_S = 240.0    # a bound on a wait for a state, never a expected duration


def _until(job: DecodeJob, test) -> JobState:
    """Poll the job until ``test(state)`` holds (state, not time; bounded)."""
    began = time.monotonic()
    while time.monotonic() - began < DEADLINE_S:
        state = job.state()
        if test(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"the decode never reached the state: {job.state()}")


def _ended(state: JobState) -> bool:
    return state.state != "running"


def _located(error: DatasetError, *words: str) -> None:
    for lang in ("en", "zh"):
        text = catalog(lang)[error.key].format(**error.params)
        assert "{" not in text and all(word in text for word in words), text


@pytest.fixture()
def ws() -> Path:
    clear_cache()
    return default_workspace().ensure().root


def _request(name: str, **options) -> DatasetRequest:
    return DatasetRequest(f"upload:images:{name}", {"image_size": 8, **options},
                          val_fraction=0.0, test_fraction=0.25)


def test_only_uploads_are_decoded_apart() -> None:
    assert decoded_apart(DatasetRequest("upload:csv:a.csv"))
    assert decoded_apart(_request("a.zip"))
    assert not decoded_apart(DatasetRequest("digits28"))


def test_a_zip_decoded_apart_gives_the_in_process_info_with_its_progress(ws: Path) -> None:
    image_zip(ws, 600, "pets")
    request = _request("pets600.zip")
    job = DecodeJob(ws / "cache", request).start()
    state = _until(job, _ended)
    assert state.state == "done", state
    assert state.info == load_dataset(request).info
    assert (state.info.n_train, state.info.n_test, state.info.class_names) == (450, 150,
                                                                              ("a", "b"))
    progress = (job.folder / "progress.json").read_text()
    assert '"done": 600' in progress and '"total": 600' in progress
    # a second session asking for the same upload gets the same answer, no second child
    again = DecodeJob(ws / "cache", request).start()
    assert again.folder == job.folder and again._proc is None
    assert again.state().info == state.info


def test_a_changed_upload_is_decoded_again(ws: Path) -> None:
    path = image_zip(ws, 20, "swap")
    first = DecodeJob(ws / "cache", _request("swap20.zip"))
    image_zip(ws, 40, "swap").replace(path)            # same name, new content
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert DecodeJob(ws / "cache", _request("swap20.zip")).folder != first.folder


def test_a_refusal_in_the_child_keeps_its_location(ws: Path) -> None:
    path = ws / "uploads" / "broken.zip"
    buffer = io.BytesIO()
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(buffer, format="PNG")
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(4):
            archive.writestr(f"{'ab'[i % 2]}/{i}.png", buffer.getvalue())
        archive.writestr("a/not_an_image.png", b"this is text, not a PNG")
    state = _until(DecodeJob(ws / "cache", _request("broken.zip")).start(), _ended)
    assert state.state == "failed" and state.error.key == "data.err.broken_images"
    _located(state.error, "broken.zip", "not_an_image.png")


def test_cancel_kills_the_child_and_is_remembered_until_read_again(ws: Path) -> None:
    image_zip(ws, 3000, "big")
    request = _request("big3000.zip")
    job = DecodeJob(ws / "cache", request).start()
    pid = job._job()["pid"]
    assert job.state().state == "running"
    job.cancel()
    assert job.state().state == "cancelled"
    _until(job, lambda s: not alive(pid))             # the child and its group are gone
    assert not (job.folder / "info.json").exists()
    # another rerun of the page does not start it again; "Read it again" does
    assert DecodeJob(ws / "cache", request).start().state().state == "cancelled"
    state = _until(DecodeJob(ws / "cache", request).retry(), _ended)
    assert state.state == "done" and state.info.n_train + state.info.n_test == 3000


def test_a_memory_limit_stops_the_child_and_names_the_limit(ws: Path) -> None:
    image_zip(ws, 200, "mem")
    job = DecodeJob(ws / "cache", _request("mem200.zip"), memory_mb=40).start()
    state = _until(job, _ended)
    assert state.state == "failed" and state.error.key == "data.err.decode_memory"
    _located(state.error, "mem200.zip", "40 MB")
    _until(job, lambda s: not alive(job._job()["pid"]))


def test_a_time_limit_stops_the_child_and_names_the_limit(ws: Path) -> None:
    image_zip(ws, 200, "slow")
    job = DecodeJob(ws / "cache", _request("slow200.zip"), time_s=0.3).start()
    state = _until(job, _ended)
    assert state.state == "failed" and state.error.key == "data.err.decode_time"
    _located(state.error, "slow200.zip")


def test_a_child_that_dies_silently_or_a_damaged_answer_is_reported(ws: Path) -> None:
    image_zip(ws, 2000, "dies")
    request = _request("dies2000.zip")
    job = DecodeJob(ws / "cache", request).start()
    os.killpg(job._job()["pid"], signal.SIGKILL)         # as the kernel's OOM killer would
    state = _until(job, _ended)
    assert state.state == "failed" and state.error.key == "data.err.decode_died"
    _located(state.error, "dies2000.zip")
    (job.folder / "info.json").write_text('{"task": "classification", "name": 3}')
    state = job.state()
    assert state.state == "failed" and state.error.key == "data.err.info"
    (job.folder / "info.json").write_text("not json")
    assert job.state().error.key == "data.err.info"


def test_dataset_info_round_trips_and_refuses_what_is_not_one() -> None:
    info = load_dataset(DatasetRequest("digits28")).info
    assert DatasetInfo.from_dict(info.to_dict()) == info
    for bad in (None, [], {"task": "guess"}, info.to_dict() | {"input_shape": "28x28"},
                info.to_dict() | {"n_train": None}):
        with pytest.raises(DatasetError) as caught:
            DatasetInfo.from_dict(bad)
        assert caught.value.key == "data.err.info"
