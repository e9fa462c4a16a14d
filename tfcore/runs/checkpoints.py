"""List the checkpoints of a folder, oldest first, with what is wrong with each.

Works on a run's ``ckpt/`` folder (``tf.train.CheckpointManager`` with the run's
``ckpt_prefix``: ``ckpt-N`` or the tutorial's ``model.ckpt-N``; any prefix is read, the
number is what follows the last ``-``) and on any folder written by someone else's script
(``tf.train.Checkpoint(...).save(prefix)``).
Damage is reported as data (``problems``, found by :mod:`tfcore.runs.ckpt_checks`), never
raised: a missing ``checkpoint`` state file (the list is rebuilt from the ``.index`` files),
a missing or truncated data file, an unreadable index, and what an interrupted save left
behind (``ckpt-N_temp/`` folders, ``checkpoint.tmp*`` files), listed as ``leftovers``.
Nothing here writes or deletes a file except :func:`remove_leftovers`, which a person asks
for. The variables inside one checkpoint are read by :mod:`tfcore.runs.ckpt_variables`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tfcore.errors import CheckpointError
from tfcore.messages import Names, Text, names
from tfcore.runs.ckpt_checks import (
    not_regular,
    read_problems,
    shard_problems,
    short_error,
    shown,
    special_files,
)
from tfcore.tfenv import quiet_tensorflow

quiet_tensorflow()

STATE_FILE = "checkpoint"
_NUMBER = re.compile(r"-(\d+)$")
_LEFTOVER_DIR = re.compile(r"_temp(_[0-9a-fA-F]+)?$")
_LEFTOVER_FILE = re.compile(r"^checkpoint\.tmp|\.tempstate\d*$")


@dataclass(frozen=True)
class CheckpointEntry:
    """One saved checkpoint: its prefix, number (= step for runs), time, size and files."""

    prefix: Path
    number: int | None
    time: float | None
    size: int
    files: tuple[str, ...]
    latest: bool = False
    problems: tuple[Text | str, ...] = ()    # catalog texts (``runs.ckpt_problem.*``)

    @property
    def name(self) -> str:
        return self.prefix.name

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"name": self.name, "prefix": str(self.prefix), "number": self.number,
                "time": self.time, "size": self.size, "files": list(self.files),
                "latest": self.latest, "problems": [str(p) for p in self.problems]}


@dataclass(frozen=True)
class CheckpointList:
    """Every checkpoint of one folder, oldest first, and what is wrong with the folder."""

    directory: Path
    entries: tuple[CheckpointEntry, ...]
    has_state_file: bool
    problems: tuple[Text | str, ...] = ()
    leftovers: tuple[str, ...] = ()

    @property
    def latest(self) -> CheckpointEntry | None:
        marked = [e for e in self.entries if e.latest]
        return marked[-1] if marked else (self.entries[-1] if self.entries else None)

    def get(self, number: int | None) -> CheckpointEntry:
        """The entry numbered ``number`` (latest when None).

        Raises:
            CheckpointError: no such checkpoint in the folder.
        """
        entry = self.latest if number is None else next(
            (e for e in self.entries if e.number == number), None)
        if entry is None:
            if number is None:
                raise CheckpointError(key="runs.err.no_ckpt_yet",
                                      params={"path": shown(self.directory)})
            raise CheckpointError(key="runs.err.no_ckpt", params={
                "number": number, "path": shown(self.directory),
                "available": names(e.number for e in self.entries)})
        return entry

    def to_dict(self) -> dict:
        return {"directory": str(self.directory), "has_state_file": self.has_state_file,
                "problems": [str(p) for p in self.problems],
                "leftovers": list(self.leftovers),
                "entries": [e.to_dict() for e in self.entries]}


# ---------------------------------------------------------------- listing ---------------


def resolve_directory(path: Path | str) -> Path:
    """The checkpoint folder of a run folder (``<run>/ckpt``), a folder, or a prefix.

    Raises:
        CheckpointError: the path does not exist.
    """
    path = Path(path)
    if path.is_dir():
        return path / "ckpt" if (path / "ckpt").is_dir() else path
    if Path(str(path) + ".index").exists() or path.parent.is_dir() and _looks_like_prefix(path):
        return path.parent
    raise CheckpointError(key="runs.err.no_ckpt_dir", params={"path": shown(path)})


def _looks_like_prefix(path: Path) -> bool:
    return any(p.name.startswith(path.name + ".") for p in path.parent.iterdir())


def _read_state(directory: Path) -> tuple[dict[str, float], str | None, list[str]]:
    """Parse the ``checkpoint`` text file: {name: timestamp}, latest name, problems."""
    from tfcore.workspace import file_kind

    state = directory / STATE_FILE
    kind = file_kind(state, directory)
    if kind == "missing":
        return {}, None, []
    if kind is not None or state.stat().st_size > 2**20:
        return {}, None, [not_regular(STATE_FILE, kind or "other")]
    try:
        text = state.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return {}, None, [Text("runs.ckpt_problem.state_unreadable", {
            "file": STATE_FILE, "error": short_error(exc)})]
    latest = re.search(r'^model_checkpoint_path:\s*"([^"]*)"', text, re.M)
    names = re.findall(r'^all_model_checkpoint_paths:\s*"([^"]*)"', text, re.M)
    stamps = [float(s) for s in
              re.findall(r"^all_model_checkpoint_timestamps:\s*([0-9.eE+-]+)", text, re.M)]
    names = [Path(n).name for n in names]
    times = dict(zip(names, stamps)) if len(stamps) == len(names) else {n: None for n in names}
    return times, Path(latest.group(1)).name if latest else None, []


def list_checkpoints(path: Path | str, verify: bool = True) -> CheckpointList:
    """Every checkpoint under a run folder or checkpoint folder, oldest first.

    The list comes from the ``.index`` files (so a missing ``checkpoint`` state file only
    adds a problem); each entry lists its own problems (missing or truncated data file).
    """
    directory = resolve_directory(path)
    times, latest_name, problems = _read_state(directory)
    has_state = (directory / STATE_FILE).is_file()
    if not has_state:
        problems.append(Text("runs.ckpt_problem.state_missing", {"file": STATE_FILE}))
    leftovers = find_leftovers(directory)
    if leftovers:
        problems.append(Text("runs.ckpt_problem.leftovers", {
            "count": len(leftovers),
            "names": Names(leftovers[:5] + (["..."] if len(leftovers) > 5 else []))}))
    prefixes = {p.name[: -len(".index")] for p in directory.glob("*.index")}
    for name in times:
        if name not in prefixes:
            problems.append(Text("runs.ckpt_problem.index_missing", {"ckpt": name,
                                                                 "file": STATE_FILE}))
    entries = [_entry(directory / name, times.get(name), name == latest_name, verify)
               for name in prefixes]
    entries.sort(key=lambda e: (e.number if e.number is not None else -1, e.time or 0, e.name))
    if latest_name is None and entries:
        entries[-1] = _replace_latest(entries[-1])
    return CheckpointList(directory=directory, entries=tuple(entries),
                          has_state_file=has_state, problems=tuple(problems),
                          leftovers=tuple(leftovers))


def find_leftovers(directory: Path) -> list[str]:
    """Names of what interrupted saves left in a checkpoint folder, sorted."""
    found = []
    for item in directory.iterdir():
        if item.is_dir() and not item.is_symlink() and _LEFTOVER_DIR.search(item.name):
            found.append(item.name + "/")
        elif item.is_file() and _LEFTOVER_FILE.search(item.name):
            found.append(item.name)
    return sorted(found)


def remove_leftovers(path: Path | str) -> tuple[str, ...]:
    """Delete what interrupted saves left (``ckpt-N_temp/``, ``checkpoint.tmp*``); return
    the names removed. Complete checkpoints are never touched. Call it only while no worker
    is saving into the folder."""
    import shutil

    directory = resolve_directory(path)
    removed = []
    for name in find_leftovers(directory):
        target = directory / name.rstrip("/")
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
        removed.append(name)
    return tuple(removed)


def _replace_latest(entry: CheckpointEntry) -> CheckpointEntry:
    from dataclasses import replace

    return replace(entry, latest=True)


def _entry(prefix: Path, stamp: float | None, latest: bool, verify: bool) -> CheckpointEntry:
    from tfcore.workspace import file_kind

    files = sorted(p for p in prefix.parent.iterdir()
                   if p.name == prefix.name + ".index" or p.name.startswith(prefix.name + ".data-"))
    special = special_files(prefix)
    size = sum(p.stat().st_size for p in files if file_kind(p) is None)
    match = _NUMBER.search(prefix.name)
    problems = special or shard_problems(prefix, files)
    if not problems and verify:
        problems = read_problems(prefix, size)
    index = prefix.parent / (prefix.name + ".index")
    when = stamp if stamp is not None else index.stat().st_mtime
    return CheckpointEntry(prefix=prefix, number=int(match.group(1)) if match else None,
                           time=when, size=size, files=tuple(p.name for p in files),
                           latest=latest, problems=tuple(problems))


def resolve_prefix(path: Path | str, number: int | None = None) -> Path:
    """A checkpoint prefix from a prefix, a folder (latest, or ``number``) or a run folder.

    Raises:
        CheckpointError: nothing readable there.
    """
    path = Path(path)
    if Path(str(path) + ".index").exists():
        return path
    return list_checkpoints(path, verify=False).get(number).prefix
