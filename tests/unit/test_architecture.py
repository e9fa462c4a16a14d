"""The layout's rules, read from the source with ``ast``: the documented layer graph, no
import cycles, faces that offer names.

Every import counts, also the ones inside functions: a lazy import hides a cycle from
Python but not from a reader. ``from pkg import name`` is an edge to ``pkg.name`` when that
is a module, else to ``pkg``; a package's parents are not edges (Python imports them
first, but they are faces that a submodule never imports back).

The layer graph lives in ``docs/architecture.md`` (between the ``layer-graph`` markers):
one row per package, bottom-up, with the packages it may import. Run this file as a
script to print the rows the code has today.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("tfcore", "ui")
PRODUCTION = ("tfcore", "ui", "app_pages")
COMMON_CORE = {"tfcore.errors", "tfcore.workspace", "tfcore.tfenv", "tfcore.jsonio",
               "tfcore.settings", "tfcore.messages", "tfcore.procs"}
DOC = ROOT / "docs" / "architecture.md"
GRAPH_START, GRAPH_END = "<!-- layer-graph -->", "<!-- /layer-graph -->"
NONE = "—"

# Faces that still hand out a whole submodule, and the only files allowed to take it.
# Empty now: every face hands out names. The
# list may only shrink: an entry nobody uses any more fails the test.
STILL_MODULES: dict[str, set[str]] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules(roots=SCANNED) -> dict[str, Path]:
    found = {}
    for root in roots:
        if root.endswith(".py"):
            found[root[:-3]] = ROOT / root
            continue
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


# --- the documented layer graph ------------------------------------------------------

def package_of(module: str) -> str:
    """The row of the layer graph a module belongs to: ``tfcore.X``, ``ui.X``, a top level."""
    parts = module.split(".")
    if parts[0] in ("tfcore", "ui"):
        return ".".join(parts[:2])
    return parts[0]                       # app_pages (one package of pages) or app


def package_edges() -> dict[str, set[str]]:
    """Package -> the packages its modules import, from the code."""
    graph = import_graph(PRODUCTION + ("app.py",))
    edges: dict[str, set[str]] = {package_of(m): set() for m in graph}
    for module, targets in graph.items():
        edges[package_of(module)] |= {package_of(t) for t in targets} - {package_of(module)}
    return edges


def documented_layers(text: str | None = None) -> list[tuple[str, set[str]]]:
    """The rows of the layer graph in docs/architecture.md, bottom-up: (package, may import)."""
    text = DOC.read_text(encoding="utf-8") if text is None else text
    assert GRAPH_START in text and GRAPH_END in text, f"{DOC.name} has no layer graph"
    rows = []
    section = text.split(GRAPH_START, 1)[1].split(GRAPH_END, 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        rows.append((cells[0].strip("`"), set(re.findall(r"`([^`]+)`", cells[2]))))
    return rows


def row_text(package: str, imports: set[str]) -> str:
    names = ", ".join(f"`{p}`" for p in sorted(imports)) or NONE
    return f"| `{package}` | … | {names} |"


def layer_problems(rows: list[tuple[str, set[str]]], edges: dict[str, set[str]]) -> list[str]:
    """Every way the documented rows and the code's edges disagree."""
    problems, above = [], set()
    names = [p for p, _ in rows]
    problems += [f"{p} is documented twice" for p in sorted({n for n in names
                                                             if names.count(n) > 1})]
    problems += [f"{p} is documented but does not exist" for p in names if p not in edges]
    problems += [f"{p} exists but is not documented" for p in sorted(set(edges) - set(names))]
    for package, allowed in rows:
        real = edges.get(package, set())
        problems += [f"{package} imports {t}, which its row does not allow"
                     for t in sorted(real - allowed)]
        problems += [f"{package} may import {t} but does not: drop it from its row"
                     for t in sorted(allowed - real)]
        problems += [f"{package} may import {t}, which is not below it"
                     for t in sorted(allowed - above)]
        above.add(package)
    return problems


def test_the_code_follows_the_documented_layer_graph():
    rows, edges = documented_layers(), package_edges()
    problems = layer_problems(rows, edges)
    fixes = [row_text(p, edges[p]) for p, allowed in rows if p in edges and edges[p] != allowed]
    assert not problems, ("docs/architecture.md's layer graph and the imports disagree:\n"
                          + "\n".join(problems) + "\nrows as the code has them:\n"
                          + "\n".join(fixes))


def test_layer_check_names_each_kind_of_drift():
    doc = f"""{GRAPH_START}
| Package | Owns | May import |
|---|---|---|
| `a` | x | {NONE} |
| `b` | x | `a`, `c` |
| `c` | x | `a` |
| `gone` | x | {NONE} |
{GRAPH_END}"""
    rows = documented_layers(doc)
    assert rows == [("a", set()), ("b", {"a", "c"}), ("c", {"a"}), ("gone", set())]
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "new": set()}
    assert layer_problems(rows, edges) == [
        "gone is documented but does not exist", "new exists but is not documented",
        "a imports b, which its row does not allow",
        "b may import a but does not: drop it from its row",
        "b may import c, which is not below it"]


# --- cycles and faces ----------------------------------------------------------------

def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_cycle_finder_names_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def face_names(init: Path) -> set[str]:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__"
                                                for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def face_modules(face: str, init: Path, known: dict[str, Path]) -> set[str]:
    """The names a face binds to a whole submodule (the last binding of a name wins)."""
    bound: dict[str, bool] = {}
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                bound[alias.asname or alias.name] = (
                    node.module == face and f"{face}.{alias.name}" in known)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound[node.name] = False
    return {name for name, is_module in bound.items() if is_module}


def test_face_modules_tells_a_submodule_from_a_function_of_its_name(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("from pkg import jobs, store\nfrom pkg.store import store\n"
                    "from pkg.jobs import start_run\n")
    known = {"pkg.jobs": tmp_path / "jobs.py", "pkg.store": tmp_path / "store.py"}
    assert face_modules("pkg", init, known) == {"jobs"}


def face_violations() -> tuple[list[str], dict[str, set[str]]]:
    """Imports past a face or of a name it does not offer; whole-submodule imports by file."""
    known = modules(SCANNED)
    faces = {name: path for name, path in known.items() if path.name == "__init__.py"}
    bad, taken = [], {}
    paths = sorted(p for root in PRODUCTION for p in (ROOT / root).rglob("*.py"))
    for path in paths + [ROOT / "app.py"]:
        here, rel = module_name(path), str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                pairs = [(a.name, None) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                pairs = [(node.module, a.name) for a in node.names]
            else:
                continue
            for target, name in pairs:
                parts = target.split(".")
                if parts[0] not in SCANNED or target in COMMON_CORE:
                    continue
                owner = ".".join(parts[:2])
                if here == owner or here.startswith(owner + "."):
                    continue                      # inside its own package
                where = f"{rel}:{node.lineno}"
                if target not in faces:
                    bad.append(f"{where} imports {target}, past the face {owner}")
                elif name is not None and name not in face_names(faces[target]):
                    bad.append(f"{where} imports {target}.{name}, not in its __all__")
                elif name in face_modules(target, faces[target], known):
                    taken.setdefault(f"{target}.{name}", set()).add(rel)
    return bad, taken


def test_code_outside_a_package_imports_only_names_its_face_offers():
    bad, taken = face_violations()
    for module, files in sorted(taken.items()):
        extra = files - STILL_MODULES.get(module, set())
        bad += [f"{f} imports the whole module {module}: import its names from the face"
                for f in sorted(extra)]
    assert not bad, "imports past a package's face:\n" + "\n".join(bad)


def test_the_list_of_faces_that_still_hand_out_modules_only_shrinks():
    _, taken = face_violations()
    stale = {m: sorted(files - taken.get(m, set())) for m, files in STILL_MODULES.items()}
    stale = {m: files for m, files in stale.items() if files}
    assert not stale, f"STILL_MODULES names imports that are gone; remove them: {stale}"


@pytest.mark.parametrize("face", sorted(
    p for p in (ROOT / "tfcore").glob("*/__init__.py")) + sorted(
    p for p in (ROOT / "ui").glob("*/__init__.py")), ids=lambda p: p.parent.name)
def test_every_package_names_its_face(face):
    tree = ast.parse(face.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{face} has no docstring"
    names = face_names(face)
    assert names, f"{face} has no __all__"
    module = __import__(module_name(face), fromlist=["*"])
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{face}: __all__ names what it does not define: {missing}"
    whole = {f"{module_name(face)}.{n}"
             for n in names & face_modules(module_name(face), face, modules(SCANNED))}
    assert whole <= set(STILL_MODULES), f"{face}: __all__ lists submodules: {sorted(whole)}"


def test_top_level_engine_is_faces_and_the_common_core():
    top = {p.stem for p in (ROOT / "tfcore").glob("*.py")}
    allowed = {"__init__", "__main__"} | {m.split(".")[1] for m in COMMON_CORE}
    assert top <= allowed, f"modules outside a package: {sorted(top - allowed)}"
    top_ui = {p.stem for p in (ROOT / "ui").glob("*.py")}
    assert top_ui <= {"__init__"}, f"ui modules outside a package: {sorted(top_ui)}"


if __name__ == "__main__":                 # print the rows the code has today
    for package, imports in sorted(package_edges().items()):
        print(row_text(package, imports))
