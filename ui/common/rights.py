"""Teacher rights: on a shared server, destructive actions need the teacher password.

On a loopback server (only this machine can connect) everyone may delete, rename and
run trusted code. When the server listens on any other address (or, in the class setup,
its proxy does: every process applies the same rule), those actions are off
unless ``.streamlit/secrets.toml`` holds ``teacher_password`` and the teacher typed it in
this browser (compared in constant time).

A sign-in is kept for the browser, not only for one page session: a cookie holds a token
that the workspace knows (:mod:`tfcore.lessons.signins`), so a reload, a second tab or
another process of the class setup recognises the teacher until they sign out, the
password changes or :data:`~tfcore.lessons.signins.SIGNIN_TTL` passes.
"""

from __future__ import annotations

import hmac
import ipaddress

import streamlit as st

from tfcore.lessons import SIGNIN_TTL, sign_in, sign_out, signed_in
from tfcore.settings import public_address
from tfcore.workspace import default_workspace

from ui.common.cookies import browser_cookie, write_cookie
from ui.common.i18n import t

SECRET_KEY = "teacher_password"
SIGNED_IN = "rights.teacher"       # session_state: this browser's sign-in token
COOKIE_TODO = "rights.cookie"      # session_state: the cookie to write (a token, "" to clear)
LOGIN_KEY = "rights.password"
COOKIE = "tflab_teacher"           # the browser's cookie that holds the token


def is_loopback_address(address: str | None) -> bool:
    """Whether ``address`` (a ``server.address`` value) accepts only local connections.

    Empty (all interfaces), ``0.0.0.0``, ``::`` and any non-loopback address or host
    name count as shared."""
    host = (address or "").strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server_is_loopback() -> bool:
    """Whether only this machine can reach this server: the address it listens on
    (``server.address``) or, behind the class setup's proxy, the proxy's
    (``TFLAB_PUBLIC_ADDRESS``; each process itself listens on 127.0.0.1)."""
    public = public_address()
    return is_loopback_address(public if public is not None
                               else st.get_option("server.address"))


def teacher_password() -> str | None:
    """The teacher password from ``st.secrets`` or None (no secrets file, no key, empty)."""
    try:
        if not st.secrets.load_if_toml_exists():
            return None
        value = st.secrets.get(SECRET_KEY)
    except Exception:  # noqa: BLE001 - an unreadable secrets file means no password
        return None
    return str(value) if value else None


def _matches(typed: str, password: str) -> bool:
    return hmac.compare_digest(typed.encode("utf-8"), password.encode("utf-8"))


def _browser_token() -> str | None:
    """The sign-in token this browser sent when its page connected, if any."""
    return browser_cookie(COOKIE)


def _teacher_token(password: str) -> str | None:
    """This session's live sign-in token: the one it signed in with, else the browser's
    cookie when the workspace knows it (a reload, another tab, another process)."""
    workspace = default_workspace()
    token = st.session_state.get(SIGNED_IN)
    if isinstance(token, str) and signed_in(workspace, token, password):
        return token
    cookie = _browser_token()
    if cookie is not None and cookie != token and signed_in(workspace, cookie, password):
        st.session_state[SIGNED_IN] = cookie
        return cookie
    st.session_state.pop(SIGNED_IN, None)         # signed out elsewhere, expired, changed
    return None


def can_destroy() -> bool:
    """Whether this session may delete, rename and run trusted code."""
    if server_is_loopback():
        return True
    password = teacher_password()
    return password is not None and _teacher_token(password) is not None


def _write_cookie(key: str) -> None:
    """Write the cookie this session owes its browser (after a sign-in or a sign-out); it
    stays in the page for the session, so a rerun that comes before it has drawn does not
    lose it."""
    value = st.session_state.get(COOKIE_TODO)
    if isinstance(value, str):
        write_cookie(f"{key}.cookie", COOKIE, value, int(SIGNIN_TTL) if value else 0)


def teacher_login(key: str = LOGIN_KEY) -> bool:
    """On a shared server, the teacher's password field (in an expander) and why
    destructive actions are off; nothing on a loopback server. Returns ``can_destroy()``.

    Call it above the destructive buttons, then pass ``disabled=not allowed``."""
    if server_is_loopback():
        return True
    password = teacher_password()
    if password is None:
        st.caption(t("rights.no_password"))
        return False
    _write_cookie(key)
    token = _teacher_token(password)
    if token is not None:
        if st.button(t("rights.sign_out"), key=f"{key}.sign_out", icon=":material/logout:",
                     help=t("rights.sign_out_help", hours=round(SIGNIN_TTL / 3600))):
            sign_out(default_workspace(), token)         # every tab and process of it
            st.session_state.pop(SIGNED_IN, None)
            st.session_state[COOKIE_TODO] = ""
            st.rerun()
        return True
    with st.expander(t("rights.login"), icon=":material/lock:"):
        typed = st.text_input(t("rights.password"), type="password", key=key)
        if typed:
            if _matches(typed, password):
                token = sign_in(default_workspace(), password)
                st.session_state[SIGNED_IN] = token
                st.session_state[COOKIE_TODO] = token
                st.rerun()
            st.error(t("rights.wrong"), icon=":material/error:")
    st.caption(t("rights.locked"))
    return False
