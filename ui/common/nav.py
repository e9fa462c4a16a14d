"""The dashboard's pages in menu order: file, title key, icon, section."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class PageDef:
    """One page: its file under ``app_pages/``, its title key (``<key>.desc`` describes it)."""

    path: str
    key: str
    icon: str
    section: str

    @property
    def exists(self) -> bool:
        return (PROJECT_ROOT / self.path).is_file()


PAGES: tuple[PageDef, ...] = (
    PageDef("app_pages/home.py", "nav.home", ":material/home:", "nav.section.start"),
    PageDef("app_pages/lessons.py", "nav.lessons", ":material/co_present:", "nav.section.start"),
    PageDef("app_pages/tensors.py", "nav.tensors", ":material/function:", "nav.section.foundations"),
    PageDef("app_pages/pipeline.py", "nav.pipeline", ":material/conveyor_belt:", "nav.section.foundations"),
    PageDef("app_pages/placement.py", "nav.placement", ":material/memory:", "nav.section.foundations"),
    PageDef("app_pages/builder.py", "nav.builder", ":material/account_tree:", "nav.section.models"),
    PageDef("app_pages/weights.py", "nav.weights", ":material/tune:", "nav.section.models"),
    PageDef("app_pages/custom_code.py", "nav.custom", ":material/code:", "nav.section.models"),
    PageDef("app_pages/train.py", "nav.train", ":material/model_training:", "nav.section.training"),
    PageDef("app_pages/runs.py", "nav.runs", ":material/folder_open:", "nav.section.training"),
    PageDef("app_pages/timing.py", "nav.timing", ":material/timer:", "nav.section.training"),
)


def available_pages() -> list[PageDef]:
    """Pages whose file exists, in menu order (looked up once per process: the files ship
    with the app, and a page run calls this several times; 58 of 1,487 samples of a
    classroom server's time were these ``stat`` calls before, bench_sessions --follow +
    py-spy)."""
    return list(_available())


@lru_cache(maxsize=1)
def _available() -> tuple[PageDef, ...]:
    return tuple(page for page in PAGES if page.exists)
