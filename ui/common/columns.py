"""Tables that fit their page: columns of fixed widths whose texts are shortened to one
line, so a long run name (in either language) never pushes a column out of a 1280 px page.
The glide grid sizes a column to its longest text otherwise, and the table then scrolls
sideways, hiding its last columns."""

from __future__ import annotations

import unicodedata
from typing import Iterable, Mapping, Sequence

import pandas as pd
import streamlit as st

CELL_PX, PAD_PX = 7, 17         # px per half-width character (Source Sans 14 px), padding


def cells(text: str) -> int:
    """Display width of ``text`` in half-width cells (a CJK character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _head(text: str, width: int) -> str:
    """The longest start of ``text`` that fits ``width`` cells."""
    used = 0
    for i, char in enumerate(text):
        used += cells(char)
        if used > width:
            return text[:i]
    return text


def shorten(text: str, width: int) -> str:
    """``text`` as it fits one line of ``width`` half-width cells: whole, or its start and
    end around an ellipsis (names often differ at the end: ``lesson_net 2``)."""
    if cells(text) <= width:
        return text
    tail = _head(text[::-1], (width - 1) // 3)[::-1]
    return _head(text, width - 1 - cells(tail)).rstrip() + "…" + tail.lstrip()


def fits(px: int) -> int:
    """How many half-width cells a column ``px`` wide shows."""
    return (px - PAD_PX) // CELL_PX


def fitted(rows: Sequence[Mapping[str, object]], widths: Mapping[str, int],
           shortened: Iterable[str]) -> tuple[pd.DataFrame, dict]:
    """The frame of ``rows`` with the ``shortened`` columns' texts cut to their widths, and
    the ``column_config`` giving each column of ``widths`` its width in px."""
    cut = list(shortened)
    frame = pd.DataFrame([{k: shorten(str(v), fits(widths[k])) if k in cut else v
                           for k, v in row.items()} for row in rows],
                         columns=list(widths) if not rows else None)
    return frame, {name: {"width": px} for name, px in widths.items()}


def counted(*names: str) -> dict:
    """The ``column_config`` drawing each count column of ``names`` with separators
    (3,212,288, in the reader's locale): the grid draws an integer column without them."""
    return {name: st.column_config.NumberColumn(format="localized") for name in names}
