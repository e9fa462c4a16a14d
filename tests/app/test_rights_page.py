"""Teacher rights on the pages: on a shared server (``server.address`` 0.0.0.0) rename,
prune, delete and trusted code need the teacher password; on 127.0.0.1 they do not."""

from __future__ import annotations

import json

import pytest
from streamlit import config

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.fixtures_runs import tiny_spec
from tfcore.lessons import SIGNIN_TTL, signed_in
from tfcore.lessons.signins import signins_dir
from tfcore.rundir import FINISHED, RunWriter
from tfcore.workspace import default_workspace
from ui.common import rights
from ui.common.i18n import catalog

EN = catalog("en")
pytestmark = pytest.mark.shared_workspace      # module fixtures write runs there
RUNS, TIMING = "app_pages/runs.py", "app_pages/timing.py"
DESTRUCTIVE = ("runs.manage.save", "runs.manage.prune", "runs.manage.delete")
PASSWORD = "correct horse"


@pytest.fixture(scope="module")
def run_id() -> str:
    """A finished run (no checkpoints) to manage; written without TensorFlow."""
    writer = RunWriter.create(default_workspace().ensure().runs,
                              {"name": "rights", "spec": tiny_spec(), "dataset": {"name": "digits8"},
                               "training": {"epochs": 1}, "device": {"kind": "cpu"}})
    writer.set_status(state=FINISHED, step=4, epoch=1)
    return writer.paths.run_id


@pytest.fixture
def address():
    before = config.get_option("server.address")
    yield lambda value: config.set_option("server.address", value)
    config.set_option("server.address", before)


def _open_manage(run_id: str, secrets: dict | None):
    at = open_page(RUNS, "en")
    if secrets is not None:
        at.secrets.update(secrets)
    at.selectbox(key="runs.detail.run").set_value(run_id).run()
    at.checkbox(key=f"runs.manage.confirm.{run_id}").check().run()
    return at


def _disabled(at) -> dict[str, bool]:
    return {b.key: b.disabled for b in at.button if b.key in DESTRUCTIVE}


def test_shared_server_without_a_password_keeps_them_off(run_id: str, address) -> None:
    address("0.0.0.0")
    at = _open_manage(run_id, {"other": "value"})
    assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, True)
    assert EN["rights.no_password"] in [c.value for c in at.caption]
    assert not [w for w in at.text_input if w.key == "runs.manage.teacher"]
    assert_clean(at, "en")


def test_shared_server_needs_the_right_password(run_id: str, address) -> None:
    address("0.0.0.0")
    at = _open_manage(run_id, {"teacher_password": PASSWORD})
    assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, True)
    assert EN["rights.locked"] in [c.value for c in at.caption]
    at.text_input(key="runs.manage.teacher").set_value("wrong horse").run()
    assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, True)
    assert [e.value for e in at.error] == [EN["rights.wrong"]]
    at.text_input(key="runs.manage.teacher").set_value(PASSWORD).run()
    assert not at.exception
    assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, False)
    assert not at.error
    assert_clean(at, "en")
    next(b for b in at.button if b.key == "runs.manage.teacher.sign_out").click().run()
    assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, True)


def test_loopback_server_needs_no_password(run_id: str, address) -> None:
    address("127.0.0.1")
    at = _open_manage(run_id, {"teacher_password": PASSWORD})
    assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, False)
    assert not [w for w in at.text_input if w.key == "runs.manage.teacher"]


def test_trusted_code_on_a_shared_server_needs_the_teacher(address, monkeypatch) -> None:
    monkeypatch.setenv("TFLAB_TRUSTED_CODE", "1")
    address("0.0.0.0")
    at = open_page(TIMING, "en")
    at.secrets["teacher_password"] = PASSWORD
    at.run()
    assert not [a for a in at.text_area if a.key == "timing.ag.source"]
    at.text_input(key="timing.ag.teacher").set_value(PASSWORD).run()
    assert not at.exception
    assert [a for a in at.text_area if a.key == "timing.ag.source"]
    address("127.0.0.1")
    fresh = open_page(TIMING, "en")
    assert [a for a in fresh.text_area if a.key == "timing.ag.source"]


@pytest.mark.parametrize("public, locked", [("0.0.0.0", True), ("10.1.2.3", True),
                                            ("127.0.0.1", False)])
def test_behind_the_class_proxy_the_proxy_address_decides(run_id: str, address, monkeypatch,
                                                          public: str, locked: bool) -> None:
    """In the class setup every process listens on 127.0.0.1 behind HAProxy; the proxy's
    address (TFLAB_PUBLIC_ADDRESS, set by ui.serve for each process) decides the rules."""
    address("127.0.0.1")
    monkeypatch.setenv("TFLAB_PUBLIC_ADDRESS", public)
    at = _open_manage(run_id, {"teacher_password": PASSWORD})
    assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, locked)
    assert bool([w for w in at.text_input if w.key == "runs.manage.teacher"]) is locked
    if locked:
        at.text_input(key="runs.manage.teacher").set_value(PASSWORD).run()
        assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, False)
    assert_clean(at, "en")


def _cookie(at) -> dict | None:
    """The sign-in cookie this page writes in the browser (its data), or None."""
    found = [json.loads(c.proto.json) for c in at.get("bidi_component")
             if c.proto.component_name == "tflab_cookie"
             and json.loads(c.proto.json)["name"] == rights.COOKIE]
    assert len(found) <= 1, found
    return found[0] if found else None


def test_a_sign_in_outlasts_a_reload_until_the_teacher_signs_out(run_id: str, address,
                                                                 monkeypatch) -> None:
    """The password is typed once per browser: the page writes a cookie whose token the
    workspace knows, so a new page session (a reload, a tab, another process of the class
    setup) that sends it is the teacher's; a forged token, a changed password or a sign-out
    anywhere ends it."""
    address("0.0.0.0")
    at = _open_manage(run_id, {"teacher_password": PASSWORD})
    assert _cookie(at) is None
    at.text_input(key="runs.manage.teacher").set_value(PASSWORD).run()
    cookie = _cookie(at)
    assert cookie is not None and cookie["name"] == rights.COOKIE
    token = cookie["value"]
    assert cookie["max_age"] == int(SIGNIN_TTL) and signed_in(default_workspace(), token,
                                                              PASSWORD)
    stored = [p.read_text() for p in signins_dir(default_workspace()).glob("*.json")]
    assert stored and not any(token in text for text in stored)      # only its digest

    monkeypatch.setattr(rights, "_browser_token", lambda: token)
    again = _open_manage(run_id, {"teacher_password": PASSWORD})   # the reload
    assert _disabled(again) == dict.fromkeys(DESTRUCTIVE, False)
    assert not [w for w in again.text_input if w.key == "runs.manage.teacher"]
    assert _cookie(again) is None                                  # nothing to write
    assert_clean(again, "en")

    for forged, secrets in ((token[:-1] + ("A" if token[-1] != "A" else "B"), PASSWORD),
                            ("../../etc/passwd", PASSWORD), (token, "another password")):
        monkeypatch.setattr(rights, "_browser_token", lambda forged=forged: forged)
        other = _open_manage(run_id, {"teacher_password": secrets})
        assert _disabled(other) == dict.fromkeys(DESTRUCTIVE, True), forged

    monkeypatch.setattr(rights, "_browser_token", lambda: token)
    again = _open_manage(run_id, {"teacher_password": PASSWORD})
    next(b for b in again.button if b.key == "runs.manage.teacher.sign_out").click().run()
    assert _disabled(again) == dict.fromkeys(DESTRUCTIVE, True)
    assert _cookie(again) == {"name": rights.COOKIE, "value": "", "max_age": 0}
    assert not signed_in(default_workspace(), token, PASSWORD)
    at.run()                                        # the first tab is signed out too
    assert _disabled(at) == dict.fromkeys(DESTRUCTIVE, True)
    assert [w for w in at.text_input if w.key == "runs.manage.teacher"]
