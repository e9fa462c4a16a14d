"""Dataset value types and the one place where arrays are split into train/val/test.

``tfcore.data`` re-exports these names; import them from there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from tfcore.errors import DatasetError
from tfcore.messages import Names

DEFAULT_DATASET = "digits28"
SPLITS = ("train", "val", "test")


def _plain(value: Any) -> Any:
    """JSON-friendly copy of an option value (tuples become lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True)
class DatasetRequest:
    """Which dataset to load, its options and how to split it."""

    name: str = DEFAULT_DATASET
    options: Mapping[str, Any] = field(default_factory=dict)
    val_fraction: float = 0.1
    test_fraction: float = 0.2
    seed: int = 0

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "options": _plain(dict(self.options)),
            "val_fraction": float(self.val_fraction),
            "test_fraction": float(self.test_fraction),
            "seed": int(self.seed),
        }

    def to_json(self) -> str:
        """Canonical JSON (sorted keys): equal requests give equal strings."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "DatasetRequest":
        """Build a request from ``to_dict`` output.

        Raises:
            DatasetError: the mapping lacks a name or has values of the wrong type.
        """
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
            raise DatasetError(
                key="data.err.request", params={"value": repr(data)[:200]})
        options = data.get("options") or {}
        if not isinstance(options, Mapping):
            raise DatasetError(
                key="data.err.request", params={"value": repr(options)[:200]})
        try:
            return cls(name=data["name"], options=dict(options),
                       val_fraction=float(data.get("val_fraction", 0.1)),
                       test_fraction=float(data.get("test_fraction", 0.2)),
                       seed=int(data.get("seed", 0)))
        except (TypeError, ValueError) as exc:
            raise DatasetError(key="data.err.request",
                               params={"value": repr(data)[:200]}) from exc


@dataclass(frozen=True)
class DatasetInfo:
    """What a loaded dataset is: task, kind, shapes, classes and split sizes."""

    name: str
    title: Mapping[str, str]
    task: str                       # "classification" | "regression"
    kind: str                       # "image" | "table" | "points"
    input_shape: tuple[int, ...]
    num_classes: int | None
    class_names: tuple[str, ...]
    n_train: int
    n_val: int
    n_test: int
    feature_names: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()     # English remarks (e.g. "val and test reuse train")

    def to_dict(self) -> dict:
        return {
            "name": self.name, "title": dict(self.title), "task": self.task,
            "kind": self.kind, "input_shape": list(self.input_shape),
            "num_classes": self.num_classes, "class_names": list(self.class_names),
            "n_train": self.n_train, "n_val": self.n_val, "n_test": self.n_test,
            "feature_names": list(self.feature_names), "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: Any) -> "DatasetInfo":
        """The info of ``to_dict`` output (a decode child's ``info.json``), checked.

        Raises:
            DatasetError: not such a mapping (``data.err.info``).
        """
        try:
            if not isinstance(data, Mapping) or data.get("task") not in (
                    "classification", "regression"):
                raise TypeError(data)
            classes = data["num_classes"]
            info = cls(name=str(data["name"]),
                       title={str(k): str(v) for k, v in dict(data["title"]).items()},
                       task=data["task"], kind=str(data["kind"]),
                       input_shape=tuple(int(n) for n in data["input_shape"]),
                       num_classes=None if classes is None else int(classes),
                       class_names=tuple(str(c) for c in data["class_names"]),
                       n_train=int(data["n_train"]), n_val=int(data["n_val"]),
                       n_test=int(data["n_test"]),
                       feature_names=tuple(str(f) for f in data.get("feature_names", ())),
                       notes=tuple(str(n) for n in data.get("notes", ())))
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            raise DatasetError(key="data.err.info",
                               params={"value": repr(data)[:200]}) from exc
        return info


@dataclass(frozen=True)
class DatasetBundle:
    """Loaded arrays of the three splits plus their :class:`DatasetInfo`.

    Arrays are read-only because bundles are cached and shared; copy before editing.
    """

    info: DatasetInfo
    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray

    def split(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(x, y)`` of ``"train"``, ``"val"`` or ``"test"``.

        Raises:
            DatasetError: an unknown split name.
        """
        if name not in SPLITS:
            raise DatasetError(key="data.err.split_name",
                               params={"split": name, "choices": Names(SPLITS)})
        return getattr(self, f"x_{name}"), getattr(self, f"y_{name}")

    def class_counts(self, split: str = "train") -> dict[str, int]:
        """Examples per class name in one split (empty for regression)."""
        if self.info.task != "classification":
            return {}
        _, y = self.split(split)
        counts = np.bincount(np.asarray(y, dtype=np.int64).ravel(),
                             minlength=self.info.num_classes or 0)
        return {n: int(c) for n, c in zip(self.info.class_names, counts)}


@dataclass(frozen=True)
class RawData:
    """What a source loader returns before splitting.

    ``x``/``y`` hold every example unless the source has its own splits, given as
    ``x_test``/``y_test`` (and optionally ``x_val``/``y_val``). ``fixed_split`` makes
    train, val and test all the full set (for sets too small to hold anything out).
    """

    x: np.ndarray
    y: np.ndarray
    task: str
    kind: str
    class_names: tuple[str, ...] = ()
    feature_names: tuple[str, ...] = ()
    x_val: np.ndarray | None = None
    y_val: np.ndarray | None = None
    x_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    fixed_split: bool = False
    notes: tuple[str, ...] = ()


def check_fractions(val_fraction: float, test_fraction: float) -> None:
    """Raise DatasetError unless 0 <= val, test and val + test < 1."""
    ok = 0.0 <= val_fraction < 1.0 and 0.0 <= test_fraction < 1.0
    if not ok or val_fraction + test_fraction >= 1.0:
        raise DatasetError(
            key="data.err.fractions",
            params={"val": val_fraction, "test": test_fraction})


def _carve(x: np.ndarray, y: np.ndarray, fraction: float, seed: int,
           stratify: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split off ``fraction`` of (x, y); stratified by class when possible."""
    n = len(x)
    n_out = int(round(n * fraction))
    if n_out == 0 or fraction == 0.0:
        empty = np.zeros((0,) + x.shape[1:], x.dtype), np.zeros((0,) + y.shape[1:], y.dtype)
        return x, y, empty[0], empty[1]
    if n_out >= n:
        raise DatasetError(
            key="data.err.too_few", params={"n": n, "fraction": fraction})
    rng = np.random.default_rng(seed)
    keep = out = None
    if stratify:
        labels = np.asarray(y).ravel()
        classes, counts = np.unique(labels, return_counts=True)
        if counts.min() >= 2 and n_out >= len(classes) and n - n_out >= len(classes):
            from sklearn.model_selection import train_test_split
            idx = np.arange(n)
            keep, out = train_test_split(idx, test_size=n_out, random_state=seed,
                                         stratify=labels)
    if keep is None:
        perm = rng.permutation(n)
        out, keep = perm[:n_out], perm[n_out:]
    keep, out = np.sort(keep), np.sort(out)
    return x[keep], y[keep], x[out], y[out]


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


def split_raw(raw: RawData, name: str, title: Mapping[str, str], val_fraction: float,
              test_fraction: float, seed: int) -> DatasetBundle:
    """Split ``raw`` deterministically from ``seed`` and describe it.

    The test split is carved first from all examples, then validation from the rest,
    so changing ``val_fraction`` leaves the test set unchanged.
    """
    check_fractions(val_fraction, test_fraction)
    stratify = raw.task == "classification"
    x, y = raw.x, raw.y
    if raw.fixed_split:
        parts = (x, y, x, y, x, y)
    else:
        if raw.x_test is not None:
            x_rest, y_rest, x_te, y_te = x, y, raw.x_test, raw.y_test
        else:
            x_rest, y_rest, x_te, y_te = _carve(x, y, test_fraction, seed, stratify)
        if raw.x_val is not None:
            x_tr, y_tr, x_va, y_va = x_rest, y_rest, raw.x_val, raw.y_val
        else:
            rest_fraction = val_fraction / (1.0 - test_fraction) if raw.x_test is None \
                else val_fraction
            x_tr, y_tr, x_va, y_va = _carve(x_rest, y_rest, rest_fraction, seed + 1,
                                            stratify)
        parts = (x_tr, y_tr, x_va, y_va, x_te, y_te)
    if len(parts[0]) == 0:
        raise DatasetError(key="data.err.empty", params={"name": name})
    arrays = [_readonly(a) for a in parts]
    num_classes = len(raw.class_names) if stratify else None
    info = DatasetInfo(
        name=name, title=dict(title), task=raw.task, kind=raw.kind,
        input_shape=tuple(int(d) for d in raw.x.shape[1:]), num_classes=num_classes,
        class_names=tuple(raw.class_names) if stratify else (),
        n_train=len(arrays[0]), n_val=len(arrays[2]), n_test=len(arrays[4]),
        feature_names=tuple(raw.feature_names), notes=tuple(raw.notes))
    return DatasetBundle(info, *arrays)
