"""What is wrong with a checkpoint's files, found without raising: files that are not
regular files inside the folder, missing data shards, an unreadable index or tensor.

Used by the listing (:mod:`tfcore.runs.checkpoints`), the variable readers
(:mod:`tfcore.runs.ckpt_variables`) and the restore; nothing here writes a file.
"""

from __future__ import annotations

import re
from pathlib import Path

from tfcore.errors import CheckpointError
from tfcore.messages import Text
from tfcore.tfenv import quiet_tensorflow

quiet_tensorflow()

VERIFY_LIMIT_BYTES = 64 * 2**20  # read every tensor to detect truncation below this size
_SHARD = re.compile(r"\.data-(\d+)-of-(\d+)$")


def shown(path: Path) -> str:
    """A path for messages: relative to the workspace when inside it, else its last two
    parts (a page never shows the server's folders)."""
    from tfcore.workspace import default_workspace

    try:
        return path.resolve().relative_to(default_workspace().root.resolve()).as_posix()
    except (ValueError, OSError):
        return "/".join(path.parts[-2:]) if path.is_absolute() else str(path)


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
                found.append(not_regular(item.name, kind))
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


def shard_problems(prefix: Path, files: list[Path]) -> list[str]:
    shards = [m for p in files if (m := _SHARD.search(p.name))]
    if not shards:
        return [Text("runs.ckpt_problem.data_missing", {"ckpt": prefix.name})]
    total = int(shards[0].group(2))
    present = {int(m.group(1)) for m in shards}
    missing = [i for i in range(total) if i not in present]
    return [Text("runs.ckpt_problem.shard_missing", {"ckpt": prefix.name, "shard": i,
                                                 "total": total}) for i in missing]


def read_problems(prefix: Path, size: int) -> list[str]:
    """Open the checkpoint and (when small) read every tensor; report what fails."""
    import tensorflow as tf

    try:
        reader = tf.train.load_checkpoint(str(prefix))
    except Exception as exc:  # noqa: BLE001 - damage is data
        return [Text("runs.ckpt_problem.index_unreadable", {"ckpt": prefix.name,
                                                        "error": short_error(exc)})]
    if size > VERIFY_LIMIT_BYTES:
        return []
    bad = []
    for key in reader.get_variable_to_shape_map():
        try:
            reader.get_tensor(key)
        except Exception as exc:  # noqa: BLE001
            bad.append(Text("runs.ckpt_problem.tensor_unreadable", {
                "ckpt": prefix.name, "key": key, "error": short_error(exc)}))
    return bad[:5] + ([Text("runs.ckpt_problem.more", {"count": len(bad) - 5})] if len(bad) > 5
                      else [])


def not_regular(name: str, kind: str) -> Text:
    """``files.not_regular``: ``name`` is a FIFO, a device, a socket, a link leading out."""
    return Text("files.not_regular", {"path": name, "kind": Text(f"files.kind.{kind}")})


def short_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]
