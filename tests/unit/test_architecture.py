"""The layout's rules, read from the source with ``ast``: no import cycles, faces only.

Every import counts, also the ones inside functions: a lazy import hides a cycle from
Python but not from a reader. ``from pkg import name`` is an edge to ``pkg.name`` when that
is a module, else to ``pkg``; a package's parents are not edges (Python imports them
first, but they are faces that a submodule never imports back).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("tfcore", "ui")
PRODUCTION = ("tfcore", "ui", "app_pages")
COMMON_CORE = {"tfcore.errors", "tfcore.messages", "tfcore.workspace", "tfcore.tfenv",
               "tfcore.jsonio"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules(roots=SCANNED) -> dict[str, Path]:
    found = {}
    for root in roots:
        for path in sorted((ROOT / root).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imports_of(path: Path, known: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported module, line) for every tfcore/ui import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name in known]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                target = full if full in known else node.module
                if target in known:
                    out.append((target, node.lineno))
    return out


def import_graph(roots=SCANNED) -> dict[str, set[str]]:
    known = modules(roots)
    return {name: {m for m, _ in imports_of(path, known) if m != name}
            for name, path in known.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_cycle_finder_names_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_code_outside_a_package_imports_only_its_face():
    known = modules(("tfcore", "ui"))
    faces = {name for name, path in known.items() if path.name == "__init__.py"}
    bad = []
    for root in PRODUCTION:
        for path in sorted((ROOT / root).rglob("*.py")):
            here = module_name(path)
            for target, line in imports_of(path, known):
                parts = target.split(".")
                if len(parts) < 3:
                    continue                      # a face or the common core
                owner = ".".join(parts[:2])
                if here == owner or here.startswith(owner + "."):
                    continue                      # inside its own package
                if ".".join(parts[:-1]) in faces and target not in faces:
                    face = ".".join(parts[:-1])
                    # a submodule named in its face's __all__ is part of the face
                    if parts[-1] in face_names(known[face]):
                        continue
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not bad, "imports past a package's face:\n" + "\n".join(bad)


def face_names(init: Path) -> set[str]:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__"
                                                for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


@pytest.mark.parametrize("face", sorted(
    p for p in (ROOT / "tfcore").glob("*/__init__.py")) + sorted(
    p for p in (ROOT / "ui").glob("*/__init__.py")), ids=lambda p: p.parent.name)
def test_every_package_names_its_face(face):
    tree = ast.parse(face.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{face} has no docstring"
    names = face_names(face)
    if face.parent.name != "cli":
        assert names, f"{face} has no __all__"
    module = __import__(module_name(face), fromlist=["*"])
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{face}: __all__ names what it does not define: {missing}"


def test_top_level_engine_is_faces_and_the_common_core():
    top = {p.stem for p in (ROOT / "tfcore").glob("*.py")}
    allowed = {"__init__", "__main__"} | {m.split(".")[1] for m in COMMON_CORE}
    assert top <= allowed, f"modules outside a package: {sorted(top - allowed)}"
    top_ui = {p.stem for p in (ROOT / "ui").glob("*.py")}
    assert top_ui <= {"__init__"}, f"ui modules outside a package: {sorted(top_ui)}"
