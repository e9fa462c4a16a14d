"""Teacher rights: on a shared server, destructive actions need the teacher password.

On a loopback server (only this machine can connect) everyone may delete, rename and
run trusted code. When the server listens on any other address (or, in the class setup,
its proxy does: every process applies the same rule), those actions are off
unless ``.streamlit/secrets.toml`` holds ``teacher_password`` and the teacher typed it in
this browser session (compared in constant time).
"""

from __future__ import annotations

import hmac
import ipaddress

import streamlit as st

from tfcore.settings import public_address

from ui.common.i18n import t

SECRET_KEY = "teacher_password"
SIGNED_IN = "rights.teacher"       # session_state: True after the right password
LOGIN_KEY = "rights.password"


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


def can_destroy() -> bool:
    """Whether this session may delete, rename and run trusted code."""
    if server_is_loopback():
        return True
    return teacher_password() is not None and st.session_state.get(SIGNED_IN) is True


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
    if st.session_state.get(SIGNED_IN) is True:
        if st.button(t("rights.sign_out"), key=f"{key}.sign_out", icon=":material/logout:"):
            st.session_state[SIGNED_IN] = False
            st.rerun()
        return True
    with st.expander(t("rights.login"), icon=":material/lock:"):
        typed = st.text_input(t("rights.password"), type="password", key=key)
        if typed:
            if _matches(typed, password):
                st.session_state[SIGNED_IN] = True
                st.rerun()
            st.error(t("rights.wrong"), icon=":material/error:")
    st.caption(t("rights.locked"))
    return False
