"""Look inside checkpoints: list them, their variables, statistics and differences.

Works on a run's ``ckpt/`` folder (``tf.train.CheckpointManager`` with the run's
``ckpt_prefix``: ``ckpt-N`` or the tutorial's ``model.ckpt-N``; any prefix is read, the
number is what follows the last ``-``) and on any folder written by someone else's script
(``tf.train.Checkpoint(...).save(prefix)``).
Damage is reported as data (``problems``), never raised: a missing ``checkpoint`` state file
(the list is rebuilt from the ``.index`` files), a missing or truncated data file, an
unreadable index, and what an interrupted save left behind (``ckpt-N_temp/`` folders,
``checkpoint.tmp*`` files), listed as ``leftovers``. Nothing here writes or deletes a file
except :func:`remove_leftovers`, which a person asks for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from tfcore.errors import CheckpointError
from tfcore.messages import Names, Text, names
from tfcore.tfenv import quiet_tensorflow

quiet_tensorflow()

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
ATTR_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
STATE_FILE = "checkpoint"
VERIFY_LIMIT_BYTES = 64 * 2**20  # read every tensor to detect truncation below this size
_NUMBER = re.compile(r"-(\d+)$")
_SHARD = re.compile(r"\.data-(\d+)-of-(\d+)$")
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
                                      params={"path": _shown(self.directory)})
            raise CheckpointError(key="runs.err.no_ckpt", params={
                "number": number, "path": _shown(self.directory),
                "available": names(e.number for e in self.entries)})
        return entry

    def to_dict(self) -> dict:
        return {"directory": str(self.directory), "has_state_file": self.has_state_file,
                "problems": [str(p) for p in self.problems],
                "leftovers": list(self.leftovers),
                "entries": [e.to_dict() for e in self.entries]}


@dataclass(frozen=True)
class VariableInfo:
    """One saved tensor: checkpoint key, shape, dtype, element count, readable label."""

    key: str
    shape: tuple[int, ...]
    dtype: str
    size: int
    label: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class VariableList:
    """The variables of one checkpoint prefix, plus problems met while reading it."""

    prefix: Path
    variables: tuple[VariableInfo, ...]
    problems: tuple[Text | str, ...] = ()

    def keys(self) -> list[str]:
        return [v.key for v in self.variables]

    def get(self, key: str) -> VariableInfo | None:
        return next((v for v in self.variables if v.key == key), None)


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
    raise CheckpointError(key="runs.err.no_ckpt_dir", params={"path": _shown(path)})


def _shown(path: Path) -> str:
    """A path for messages: relative to the workspace when inside it, else its last two
    parts (a page never shows the server's folders)."""
    from tfcore.workspace import default_workspace

    try:
        return path.resolve().relative_to(default_workspace().root.resolve()).as_posix()
    except (ValueError, OSError):
        return "/".join(path.parts[-2:]) if path.is_absolute() else str(path)


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
        return {}, None, [_not_regular(STATE_FILE, kind or "other")]
    try:
        text = state.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return {}, None, [Text("runs.ckpt_problem.state_unreadable", {
            "file": STATE_FILE, "error": _short(exc)})]
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


def special_files(prefix: Path | str) -> list[str]:
    """The located problems of a checkpoint's files that are not regular files inside its
    folder (a FIFO in place of ``.index`` would make TensorFlow's reader wait forever):
    checked with one ``stat`` each before TensorFlow opens anything."""
    from tfcore.workspace import file_kind

    prefix = Path(prefix)
    found = []
    for item in sorted(prefix.parent.iterdir()):
        if item.name == prefix.name + ".index" or item.name.startswith(prefix.name + ".data-"):
            kind = file_kind(item, prefix.parent)
            if kind is not None:
                found.append(_not_regular(item.name, kind))
    return found


def check_files(prefix: Path | str) -> None:
    """Refuse a checkpoint whose files are not all regular files inside its folder.

    Raises:
        CheckpointError: ``runs.err.ckpt_special`` naming the first file and what it is.
    """
    bad = special_files(prefix)
    if bad:
        raise CheckpointError(key="runs.err.ckpt_special",
                              params={"ckpt": Path(prefix).name, "problem": bad[0]})


def _entry(prefix: Path, stamp: float | None, latest: bool, verify: bool) -> CheckpointEntry:
    from tfcore.workspace import file_kind

    files = sorted(p for p in prefix.parent.iterdir()
                   if p.name == prefix.name + ".index" or p.name.startswith(prefix.name + ".data-"))
    special = special_files(prefix)
    size = sum(p.stat().st_size for p in files if file_kind(p) is None)
    match = _NUMBER.search(prefix.name)
    problems = special or _shard_problems(prefix, files)
    if not problems and verify:
        problems = _read_problems(prefix, size)
    index = prefix.parent / (prefix.name + ".index")
    when = stamp if stamp is not None else index.stat().st_mtime
    return CheckpointEntry(prefix=prefix, number=int(match.group(1)) if match else None,
                           time=when, size=size, files=tuple(p.name for p in files),
                           latest=latest, problems=tuple(problems))


def _shard_problems(prefix: Path, files: list[Path]) -> list[str]:
    shards = [m for p in files if (m := _SHARD.search(p.name))]
    if not shards:
        return [Text("runs.ckpt_problem.data_missing", {"ckpt": prefix.name})]
    total = int(shards[0].group(2))
    present = {int(m.group(1)) for m in shards}
    missing = [i for i in range(total) if i not in present]
    return [Text("runs.ckpt_problem.shard_missing", {"ckpt": prefix.name, "shard": i,
                                                 "total": total}) for i in missing]


def _read_problems(prefix: Path, size: int) -> list[str]:
    """Open the checkpoint and (when small) read every tensor; report what fails."""
    import tensorflow as tf

    try:
        reader = tf.train.load_checkpoint(str(prefix))
    except Exception as exc:  # noqa: BLE001 - damage is data
        return [Text("runs.ckpt_problem.index_unreadable", {"ckpt": prefix.name,
                                                        "error": _short(exc)})]
    if size > VERIFY_LIMIT_BYTES:
        return []
    bad = []
    for key in reader.get_variable_to_shape_map():
        try:
            reader.get_tensor(key)
        except Exception as exc:  # noqa: BLE001
            bad.append(Text("runs.ckpt_problem.tensor_unreadable", {
                "ckpt": prefix.name, "key": key, "error": _short(exc)}))
    return bad[:5] + ([Text("runs.ckpt_problem.more", {"count": len(bad) - 5})] if len(bad) > 5
                      else [])


def _not_regular(name: str, kind: str) -> Text:
    """``files.not_regular``: ``name`` is a FIFO, a device, a socket, a link leading out."""
    return Text("files.not_regular", {"path": name, "kind": Text(f"files.kind.{kind}")})


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


# -------------------------------------------------------------- variables ---------------


def resolve_prefix(path: Path | str, number: int | None = None) -> Path:
    """A checkpoint prefix from a prefix, a folder (latest, or ``number``) or a run folder.

    Raises:
        CheckpointError: nothing readable there.
    """
    path = Path(path)
    if Path(str(path) + ".index").exists():
        return path
    return list_checkpoints(path, verify=False).get(number).prefix


def object_graph_aliases(reader) -> dict[str, tuple[str, ...]]:
    """Every object path that reaches each saved key (a variable is often reachable twice:
    through the model and through the optimizer)."""
    from tensorflow.core.protobuf import trackable_object_graph_pb2

    try:
        graph = trackable_object_graph_pb2.TrackableObjectGraph()
        graph.ParseFromString(reader.get_tensor(OBJECT_GRAPH_KEY))
    except Exception:  # noqa: BLE001 - a checkpoint without an object graph (TF1 style)
        return {}
    aliases: dict[str, list[str]] = {}

    def walk(node_id: int, path: tuple[str, ...], seen: frozenset[int]) -> None:
        node = graph.nodes[node_id]
        for attribute in node.attributes:
            aliases.setdefault(attribute.checkpoint_key, []).append("/".join(path))
        for child in node.children:
            if child.node_id not in seen and len(path) < 32:
                walk(child.node_id, path + (child.local_name,), seen | {child.node_id})

    walk(0, (), frozenset({0}))
    return {k: tuple(dict.fromkeys(v)) for k, v in aliases.items()}


def _label(key: str, aliases: Iterable[str]) -> str:
    """A readable name: the path through the model if there is one, without ``_``."""
    options = list(aliases) or [key[: -len(ATTR_SUFFIX)] if key.endswith(ATTR_SUFFIX) else key]
    preferred = [a for a in options if "optimizer" not in a.split("/")] or options
    generic = ("_variables", "_trainable_variables")
    best = min(preferred, key=lambda a: (any(g in a.split("/") for g in generic),
                                         a.count("/"), a))
    parts = [p.lstrip("_") for p in best.split("/") if p not in ("_functional", "_operations")]
    return "/".join(parts)


def list_variables(path: Path | str, number: int | None = None,
                   labels: Mapping[str, str] | None = None) -> VariableList:
    """The saved tensors of a checkpoint (``tf.train.list_variables``) with dtypes and labels.

    Args:
        labels: key -> readable name (e.g. the model's variable paths from
            :func:`tfcore.runs.restore.variable_labels`); other keys get a name from the
            checkpoint's object graph.

    Raises:
        CheckpointError: no checkpoint at ``path``.
    """
    import tensorflow as tf

    prefix = resolve_prefix(path, number)
    special = special_files(prefix)
    if special:
        return VariableList(prefix=prefix, variables=(), problems=tuple(special))
    try:
        reader = tf.train.load_checkpoint(str(prefix))
        shapes = dict(tf.train.list_variables(str(prefix)))
        dtypes = reader.get_variable_to_dtype_map()
    except Exception as exc:  # noqa: BLE001 - damage is data
        return VariableList(prefix=prefix, variables=(),
                            problems=(Text("runs.ckpt_problem.unreadable", {
                                "ckpt": prefix.name, "error": _short(exc)}),))
    aliases = object_graph_aliases(reader)
    rows = []
    for key in sorted(shapes):
        if key == OBJECT_GRAPH_KEY:
            continue
        shape = tuple(int(d) for d in shapes[key])
        rows.append(VariableInfo(key=key, shape=shape, dtype=dtypes[key].name,
                                 size=int(np.prod(shape)) if shape else 1,
                                 label=(labels or {}).get(key) or
                                 _label(key, aliases.get(key, ())),
                                 aliases=aliases.get(key, ())))
    return VariableList(prefix=prefix, variables=tuple(rows))


def read_tensor(prefix: Path | str, key: str) -> np.ndarray:
    """One saved tensor as a numpy array.

    Raises:
        CheckpointError: the key is not in the checkpoint or its data cannot be read.
    """
    import tensorflow as tf

    check_files(prefix)
    try:
        return np.asarray(tf.train.load_checkpoint(str(prefix)).get_tensor(key))
    except Exception as exc:  # noqa: BLE001
        raise CheckpointError(key="runs.err.read_var",
                              params={"key": key, "ckpt": Path(prefix).name,
                                      "reason": _short(exc)}) from exc
