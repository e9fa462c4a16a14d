"""Show a person's text (run names, tags, file names, messages) literally.

Streamlit renders labels, captions, alerts and ``st.markdown`` as GitHub-flavoured
Markdown: a run named ``![x](http://host/a.png)`` would load an image from that host and
``[link](http://host)`` would become a live link. :func:`plain` backslash-escapes what can
start Markdown or HTML (CommonMark allows escaping any ASCII punctuation) and leaves the
rest as typed, so ``dense.units``, ``run-3`` or ``(100, 10)`` stay readable in the source:

* always: backslash, backquote, ``*`` ``~`` ``[`` ``]`` ``$`` (escapes, code, emphasis, strike,
  links and images, Streamlit's ``:color[...]``, LaTeX);
* ``_`` unless between two letters or digits (``snake_case`` never emphasizes);
* ``<`` before a letter, ``/``, ``!`` or ``?`` (HTML, autolinks); ``&`` before a letter
  or ``#`` (entities);
* at the start: ``#``, ``>``, ``+``, ``-``, ``=``, ``|`` and ``1.`` / ``1)`` (headings,
  quotes, lists); line breaks become spaces and surrounding blanks go (indented code).

Escapes do not stop GitHub's *autolink literals* (found in the text after escapes are
decoded), so an invisible WORD JOINER (U+2060) goes after ``:`` before ``//``, after
``www`` before ``.`` and after ``@``: the text looks the same and never becomes a link.
Use :func:`plain` on every piece of user text placed into Markdown and
:func:`plain_params` on the parameters given to ``t()``.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from tfcore.messages import Names

JOINER = "\u2060"
NO_VALUE = "—"      # a table cell with no value (the data grid would print "None")
_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")
_ALWAYS = re.compile(r"([\\`*~\[\]$])")
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY = re.compile(r"&(?=[A-Za-z#])")
_LEADING = re.compile(r"^([#>+\-=|])|^(\d+)([.)])")
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?i:(?<=www)(?=\.))|(?<=@)")


def plain(text: Any) -> str:
    """``text`` as one line of Markdown that renders exactly as typed."""
    flat = _BREAKS.sub(" ", str(text)).replace("\x00", "\ufffd").strip()
    out = _ALWAYS.sub(r"\\\1", flat)
    out = _UNDERSCORE.sub(r"\\_", out)
    out = _TAG.sub(r"\\<", out)
    out = _ENTITY.sub(r"\\&", out)
    out = _LEADING.sub(lambda m: "\\" + m.group(1) if m.group(1)
                       else m.group(2) + "\\" + m.group(3), out)
    return _AUTOLINK.sub(JOINER, out)


class _Plain(str):
    """An escaped string that also escapes its ``repr`` (templates use ``{name!r}``)."""

    def __new__(cls, raw: str) -> "_Plain":
        made = super().__new__(cls, plain(raw))
        made.raw = raw
        return made

    def __repr__(self) -> str:
        return plain(repr(self.raw))


def plain_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Template parameters with every string escaped by :func:`plain` (``{name!r}`` too, and
    each of a list of names); numbers stay numbers so format specs such as ``{mb:.1f}`` keep
    working, and engine texts stay texts (their catalog text is the app's own)."""
    return {k: _escaped(v) for k, v in params.items()}


def _escaped(value: Any) -> Any:
    if isinstance(value, Names):              # a str too: keep it a list of names
        return Names(plain(v) for v in value.items)
    if isinstance(value, str):
        return _Plain(value)
    return value
