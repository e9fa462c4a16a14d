"""make test's order (issue 22 item 9): costly files first, each file's tests together and
in their own order, so that pytest-xdist (``--dist loadfile --no-loadscope-reorder``) starts
the long browser files early and ends on short ones."""

from __future__ import annotations

from dataclasses import dataclass

from tests.conftest import pytest_collection_modifyitems


@dataclass
class _Item:
    fspath: str
    name: str
    slow: bool = False

    def get_closest_marker(self, name: str):
        return object() if name == "slow" and self.slow else None


def test_browser_files_then_slow_files_then_the_rest_each_file_whole() -> None:
    items = [_Item("tests/unit/test_a.py", "a1"), _Item("tests/unit/test_a.py", "a2"),
             _Item("tests/unit/test_b.py", "b1"), _Item("tests/unit/test_b.py", "b2", True),
             _Item("tests/app/test_c.py", "c1"),
             _Item("tests/browser/test_d.py", "d1"), _Item("tests/browser/test_d.py", "d2"),
             _Item("tests/unit/test_e.py", "e1", True), _Item("tests/browser/test_f.py", "f1")]
    pytest_collection_modifyitems(None, items)
    assert [i.name for i in items] == ["d1", "d2", "f1", "b1", "b2", "e1", "a1", "a2", "c1"]


def test_the_makefile_keeps_this_order_for_its_workers() -> None:
    from tests.conftest import ROOT

    xdist = next(line for line in (ROOT / "Makefile").read_text().splitlines()
                 if line.startswith("XDIST :="))
    assert "--dist loadfile" in xdist and "--no-loadscope-reorder" in xdist
