"""Every key of the English catalog is used by the code: no dead text to translate.

A key counts as used when the code spells it as a string, or builds it from a prefix it
spells: an f-string or ``+`` whose constant head ends with ``.`` or ``_``
(``f"train.opt.{name}"``), a dotted literal passed as a prefix (``_options(..., "train.opt")``
and then ``f"{prefix}.{name}"``), or a used key plus an f-string's constant tail
(``f"{page.key}.desc"``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from ui.common.i18n import catalog

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = ("tfcore", "ui", "app_pages")


def code_strings() -> tuple[set[str], set[str], set[str]]:
    """(string literals, constant heads of built strings, constant tails of f-strings)."""
    files = [p for root in PRODUCTION for p in (ROOT / root).rglob("*.py")] + [ROOT / "app.py"]
    literals, heads, tails = set(), set(), set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            elif isinstance(node, ast.JoinedStr) and node.values:
                first, last = node.values[0], node.values[-1]
                if isinstance(first, ast.Constant):
                    heads.add(first.value)
                elif isinstance(last, ast.Constant):
                    tails.add(last.value)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) \
                    and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                heads.add(node.left.value)
    return literals, heads, tails


def is_used(key: str, literals: set[str], heads: set[str], tails: set[str]) -> bool:
    parent = key.rpartition(".")[0]
    return (key in literals
            or any(key.startswith(h) for h in heads if h.endswith((".", "_")))
            or ("." in parent and parent in literals)
            or any(key.endswith(t) and key[:-len(t)] in literals
                   for t in tails if t.startswith(".")))


def test_every_catalog_key_is_used_by_the_code():
    literals, heads, tails = code_strings()
    unused = sorted(k for k in catalog("en") if not is_used(k, literals, heads, tails))
    assert not unused, f"catalog keys no code uses (remove them from en and zh): {unused}"


def test_the_rules_accept_built_keys_and_refuse_a_stray_one():
    literals, heads, tails = {"train.opt", "nav.home"}, {"foundations.err."}, {".desc"}
    for key in ("train.opt.adam", "foundations.err.shape", "nav.home.desc", "nav.home"):
        assert is_used(key, literals, heads, tails), key
    for key in ("train.sched.cosine", "nav.runs.desc", "data.preview.title"):
        assert not is_used(key, literals, heads, tails), key
