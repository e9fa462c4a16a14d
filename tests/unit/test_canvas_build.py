"""The shipped canvas build matches its sources: ``dist/source-hash.txt`` (written by
``make canvas``, ui/common/frontend-tools/source-hash.js) equals the hash recomputed here from ``src/`` and
the build files, so a source change committed without a rebuild fails this test."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ui.canvas.component import DIST, FRONTEND

SOURCES = ("index.html", "package-lock.json", "package.json", "vite.config.js", "src")


def source_hash(root: Path) -> str:
    """The same hash as ui/common/frontend-tools/source-hash.js: sorted paths; path, newline, bytes (CRLF read
    as LF), NUL."""
    paths = sorted(
        str(p.relative_to(root).as_posix())
        for name in SOURCES
        for p in ([root / name] if (root / name).is_file() else (root / name).rglob("*"))
        if p.is_file())
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"{path}\n".encode())
        digest.update((root / path).read_bytes().replace(b"\r\n", b"\n"))
        digest.update(b"\0")
    return digest.hexdigest()


def test_the_shipped_dist_was_built_from_these_sources() -> None:
    recorded = (DIST / "source-hash.txt").read_text(encoding="utf-8").strip()
    assert recorded == source_hash(FRONTEND), (
        "ui/canvas/frontend changed since dist/ was built: run `make canvas` and commit dist/")
    assert (DIST / "canvas.js").stat().st_size > 100_000
    assert 'src="./canvas.js"' in (DIST / "index.html").read_text(encoding="utf-8")


def test_the_hash_sees_a_changed_added_or_renamed_source(tmp_path: Path) -> None:
    for name in ("index.html", "package-lock.json", "package.json", "vite.config.js"):
        (tmp_path / name).write_text(name)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.jsx").write_text("a\r\nb\n")
    first = source_hash(tmp_path)
    (tmp_path / "src" / "main.jsx").write_text("a\nb\n")          # line endings only
    assert source_hash(tmp_path) == first
    (tmp_path / "src" / "main.jsx").write_text("a\nc\n")
    changed = source_hash(tmp_path)
    assert changed != first
    (tmp_path / "src" / "main.jsx").rename(tmp_path / "src" / "app.jsx")
    assert source_hash(tmp_path) not in (first, changed)
    (tmp_path / "src" / "nodes.jsx").write_text("")
    assert len({first, changed, source_hash(tmp_path)}) == 3
