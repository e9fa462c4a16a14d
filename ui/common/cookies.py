"""The browser's own cookies, for what must outlast one page session: read what the browser
sent when its page connected, and write one from the page itself.

Two uses: the teacher's sign-in token (:mod:`ui.common.rights`) and an anonymous browser id
that keeps a student's presence one record across reloads (:mod:`ui.lessons.follow`).

The writer is a few lines of our own (a v2 component, nothing fetched). A cookie is
``Path=/``, ``SameSite=Strict`` (no other site's page sends it) and ``Secure`` on https. When
it is written the page's root element gets ``data-cookie-<name>="set"`` (``"cleared"`` for a
removal): browser tests wait for that state.
"""

from __future__ import annotations

import streamlit as st
from streamlit.components.v2 import component

COOKIE_JS = """
export default function ({ data }) {
  if (!data || typeof data.name !== 'string' || !/^[a-z_]+$/.test(data.name)) return;
  const value = String(data.value || '');
  if (!/^[A-Za-z0-9_-]*$/.test(value)) return;
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${data.name}=${value}; Path=/; Max-Age=${Number(data.max_age) || 0}`
    + `; SameSite=Strict${secure}`;
  document.documentElement.setAttribute(`data-cookie-${data.name}`, value ? 'set' : 'cleared');
}
"""
COMPONENT = "tflab_cookie"
_writer = component(COMPONENT, js=COOKIE_JS)


def browser_cookie(name: str) -> str | None:
    """The cookie ``name`` as the browser sent it when this page session connected (a
    reload sends what was written before it), or None."""
    try:
        value = st.context.cookies.get(name)
    except Exception:  # noqa: BLE001 - no request (a bare script run): no cookie
        return None
    return value if isinstance(value, str) else None


def write_cookie(key: str, name: str, value: str, max_age: int) -> None:
    """Write the cookie ``name`` (an empty ``value`` with ``max_age`` 0 removes it) from the
    page. Call it on every run until the session no longer owes it: an element that a rerun
    replaces before the browser has drawn it would never run."""
    _writer(key=key, data={"name": name, "value": value, "max_age": int(max_age)})
