"""Read inside one checkpoint: its saved tensors with shapes, dtypes and readable labels
(from the model's variable paths or the checkpoint's object graph), and one tensor's values.

Damage met while listing is reported as data (``problems``); reading a tensor raises.
Nothing here writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from tfcore.errors import CheckpointError
from tfcore.messages import Text
from tfcore.runs.checkpoints import resolve_prefix
from tfcore.runs.ckpt_checks import check_files, short_error, special_files
from tfcore.tfenv import quiet_tensorflow

quiet_tensorflow()

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
ATTR_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


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
                                "ckpt": prefix.name, "error": short_error(exc)}),))
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
                                      "reason": short_error(exc)}) from exc
