"""The teacher signs in once per browser (issue 27): on a shared server (behind the class
setup's proxy every process sees the proxy's address; here TFLAB_PUBLIC_ADDRESS says so)
the password typed once holds after a reload and in a second tab served by another server
process over the same workspace (a browser's cookies do not depend on the port), which are
new page sessions; a sign-out in one tab ends it in every tab, and the browser's cookie
goes."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.browser.conftest import dashboard
from tests.browser.waits import act_and_wait, settle
from ui.common.i18n import catalog

EN = catalog("en")
PASSWORD = "correct horse"
COOKIE = "tflab_teacher"
PAGE = "/lessons?lang=en"


@pytest.fixture(scope="module")
def shared_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """Two server processes over one workspace that count as shared on the network, with
    one teacher password (as the class setup runs them)."""
    folder = tmp_path_factory.mktemp("shared")
    secrets = folder / "secrets.toml"
    secrets.write_text(f'teacher_password = "{PASSWORD}"\n')
    options = {"args": ["--secrets.files", str(secrets)], "TFLAB_PUBLIC_ADDRESS": "0.0.0.0"}
    with dashboard(folder / "workspace", folder / "first.log", **options) as first, \
            dashboard(folder / "workspace", folder / "second.log", **options) as second:
        yield first, second


def _sign_out_button(page):
    return page.get_by_role("button", name=EN["rights.sign_out"])


def _open(page, url: str, signed_in: bool) -> None:
    page.goto(url + PAGE)
    settle(page, _sign_out_button(page) if signed_in else EN["rights.login"])
    assert _sign_out_button(page).count() == (1 if signed_in else 0)


def _cookie(page) -> str | None:
    found = [c["value"] for c in page.context.cookies() if c["name"] == COOKIE]
    return found[0] if found and found[0] else None


def test_a_sign_in_holds_after_a_reload_and_in_another_process(
        shared_servers: tuple[str, str], page) -> None:
    shared_server, other_process = shared_servers
    _open(page, shared_server, signed_in=False)
    act_and_wait(page, lambda: page.get_by_text(EN["rights.login"]).click(),
                 page.get_by_label(EN["rights.password"]), rerun=False,
                 what="open the sign-in")
    field = page.get_by_label(EN["rights.password"])
    field.fill(PASSWORD)
    act_and_wait(page, lambda: field.press("Enter"), _sign_out_button(page),
                 what="sign in")
    page.wait_for_function(
        "() => document.documentElement.getAttribute('data-cookie-tflab_teacher') === 'set'")
    token = _cookie(page)
    assert token and PASSWORD not in token

    page.reload()                                  # a new page session: no password asked
    settle(page, _sign_out_button(page))
    assert page.get_by_text(EN["rights.login"]).count() == 0

    second = page.context.new_page()               # a second tab, another process
    _open(second, other_process, signed_in=True)
    act_and_wait(second, lambda: _sign_out_button(second).click(),
                 second.get_by_text(EN["rights.login"]), what="sign out")
    second.wait_for_function(
        "() => document.documentElement.getAttribute('data-cookie-tflab_teacher') === 'cleared'")
    assert _cookie(second) is None
    _open(page, shared_server, signed_in=False)    # signed out in the first tab too
