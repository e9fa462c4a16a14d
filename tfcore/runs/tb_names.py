"""The runs as TensorBoard names them: by their display names, not their folders' ids.

TensorBoard names a run by its path under its logdir. The dashboard's TensorBoard reads
``<runs root>/.tensorboard-runs/``, a folder of links ``<run name> -> ../<run id>/tb`` kept
in step with the runs (:func:`sync_view`), so it lists ``lesson_net/train`` and
``lesson_net/validation`` where the runs folder holds ``lesson_net-20261130-192600-a1b2``.
An old run (its event files directly in ``tb/``) is listed as ``lesson_net``.

The folder starts with a dot, so the run store and a TensorBoard started on the runs folder
itself skip it. Only links are ever removed from it, never what they point at.
"""

from __future__ import annotations

import os
from pathlib import Path

from tfcore.rundir import RunPaths, RunStore

VIEW_NAME = ".tensorboard-runs"
MAX_BYTES = 200                 # a file name's limit is 255 bytes; leaves room for " (id)"
_REGEX_SPECIAL = set("\\^$.*+?()[]{}|/")


def view_dir(runs_root: Path | str) -> Path:
    return Path(runs_root) / VIEW_NAME


def _safe(name: str) -> str:
    """A run name usable as one folder name: no slash (it would nest), no leading dot,
    at most :data:`MAX_BYTES` bytes."""
    text = "".join(c for c in str(name) if c.isprintable()).replace("/", "\u2215").strip()
    text = text.replace("\\", "\u2216")
    if text.startswith("."):
        text = "_" + text
    raw = text.encode("utf-8")[:MAX_BYTES]
    return raw.decode("utf-8", errors="ignore").strip() or "run"


def board_names(runs_root: Path | str) -> dict[str, str]:
    """``{run id: the name TensorBoard lists it by}`` for every run: its display name,
    made a folder name; a name two runs share keeps it for the older run and gets
    ``" (<run id>)"`` for the others."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for record in reversed(RunStore(Path(runs_root)).list()):        # oldest first
        name = _safe(record.name)
        if name in taken or name == VIEW_NAME:
            name = f"{name} ({record.run_id})"
        taken.add(name)
        names[record.run_id] = name
    return names


MAX_EVENT_FILES = 10_000      # entries of one run's tb/ folder examined


def special_events(tb_dir: Path) -> list[str]:
    """The entries of a run's ``tb/`` folder that TensorBoard must not be shown: a FIFO,
    device or socket (its reader would wait forever) or a link leaving the run (relative
    paths; at most :data:`MAX_EVENT_FILES` entries are examined, more is itself refused)."""
    from tfcore.workspace import file_kind

    found, seen, run = [], 0, tb_dir.parent
    for folder, dirs, files in os.walk(tb_dir, followlinks=False):
        for name in dirs + files:
            seen += 1
            item = Path(folder) / name
            kind = file_kind(item, run)
            if seen > MAX_EVENT_FILES or kind not in (None, "folder"):
                found.append(item.relative_to(run).as_posix())
                return found
    return found


def sync_view(runs_root: Path | str) -> Path:
    """Make ``<runs root>/.tensorboard-runs/`` hold one link per run that has a ``tb/``
    folder holding only regular files (:func:`special_events`), named by
    :func:`board_names`; stale links (a run deleted or renamed) go.
    Each link is replaced atomically. Returns the folder."""
    root = Path(runs_root)
    view = view_dir(root)
    view.mkdir(exist_ok=True)
    tb_dirs = {name: RunPaths(root / run_id).tb_dir
               for run_id, name in board_names(root).items()}
    wanted = {name: os.path.relpath(tb, view) for name, tb in tb_dirs.items()
              if tb.is_dir() and not special_events(tb)}
    for entry in view.iterdir():
        if entry.is_symlink() and os.readlink(entry) != wanted.get(entry.name):
            entry.unlink(missing_ok=True)
    for name, target in wanted.items():
        link = view / name
        if link.is_symlink() or link.exists():
            continue                      # the right link, or something not ours: kept
        temp = view / f".{os.getpid()}.tmp"
        temp.unlink(missing_ok=True)
        os.symlink(target, temp)
        os.replace(temp, link)
    return view


def run_filter(name: str) -> str:
    """TensorBoard's run filter (a case-insensitive JavaScript regex) that matches the run
    ``name`` and its sub-runs (``name/train``, ...), not ``name 2``."""
    escaped = "".join("\\" + c if c in _REGEX_SPECIAL else c for c in name)
    return f"^{escaped}(/|$)"
