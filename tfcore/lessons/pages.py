"""The app's pages a lesson step may open: each page's tabs and the link parameters it
reads (``None``: the page checks its own parameters, as the Train form does).

The pages themselves draw their tabs from :data:`PAGES` (``ui.common.linked_tabs``), and a
test checks these names against the app's navigation, so a lesson file, the command line
and the dashboard agree on one list.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    """One page: the names of its tabs a step may choose, the query parameters it reads."""

    tabs: tuple[str, ...] = ()
    params: tuple[str, ...] | None = ()


PAGES: dict[str, PageInfo] = {
    "home": PageInfo(),
    "lessons": PageInfo(),
    "tensors": PageInfo(tabs=("tensors", "tape", "gd", "save")),
    "pipeline": PageInfo(),
    "placement": PageInfo(),
    "builder": PageInfo(tabs=("tryit", "code", "io", "save"), params=("preset",)),
    "weights": PageInfo(params=("preset", "run")),
    "custom_code": PageInfo(),
    "train": PageInfo(params=None),
    "runs": PageInfo(tabs=("config", "curves", "inside", "ckpts", "vars", "diff", "filters",
                           "restore", "export", "manage"), params=("run",)),
    "timing": PageInfo(tabs=("compare", "g1", "sweep", "tracing", "autograph")),
}
"""Page name (its file's stem under ``app_pages/``) -> what a step may ask of it."""

RESERVED_PARAMS = ("lesson", "step", "notes", "lang", "tab", "present", "follow", "lead")
"""Query parameters the app itself uses on every page; a step's ``query`` cannot set them
(a step's tab is its ``tab`` field)."""
