"""``insight/``'s writer: the training worker's side of the format in
:mod:`tfcore.rundir.insight_format` (the meta file once, a stats line and an optional plane
file per snapshot, and the rewind of a resumed run)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tfcore.jsonio import _json_default
from tfcore.rundir.insight_format import (
    INSIGHT_FORMAT,
    META_FILE,
    STATS_FILE,
    _count,
    grid_name,
    insight_dir,
)
from tfcore.rundir.schema import parse_json_line


class InsightWriter:
    """The worker's side: the meta file once, one stats line and an optional grid file per
    snapshot. Files are written whole (a temporary file renamed into place), stats lines
    with one ``write`` each, so a reader never sees half a snapshot."""

    def __init__(self, run_dir: Path | str) -> None:
        self.root = insight_dir(run_dir)
        self.root.mkdir(parents=True, exist_ok=True)
        self._stats = open(self.root / STATS_FILE, "a", encoding="utf-8")

    def _replace(self, name: str, write) -> None:
        tmp = self.root / f".{name}.tmp"
        with open(tmp, "wb") as handle:
            write(handle)
        os.replace(tmp, self.root / name)

    def write_meta(self, meta: Mapping[str, Any]) -> None:
        body = dict(meta, format=INSIGHT_FORMAT)
        data = json.dumps(body, ensure_ascii=False, default=_json_default).encode("utf-8")
        self._replace(META_FILE, lambda handle: handle.write(data))

    def write_grid(self, step: int, conf: np.ndarray, cls: np.ndarray | None = None,
                   neurons: "list[np.ndarray] | tuple" = (),
                   kernels: "list[np.ndarray] | tuple" = ()) -> None:
        """The plane snapshot of ``step``: ``neurons[i]`` and ``kernels[i]`` belong to the
        meta's ``neurons[i]`` layer."""
        arrays = {"conf": np.asarray(conf, np.float16)}
        if cls is not None:
            arrays["cls"] = np.asarray(cls, np.int16)
        for index, values in enumerate(neurons):
            arrays[f"n{index}"] = np.asarray(values, np.float16)
        for index, values in enumerate(kernels):
            arrays[f"w{index}"] = np.asarray(values, np.float16)
        self._replace(grid_name(step), lambda handle: np.savez_compressed(handle, **arrays))

    def rewind(self, step: int) -> set[int]:
        """Forget the snapshots after ``step`` (a run resumed from its checkpoint at
        ``step`` trains those steps again): their stats lines (and damaged ones) leave
        ``stats.jsonl``, rewritten whole only when something leaves, and their grid files
        are removed. Returns the steps still recorded."""
        path = self.root / STATS_FILE
        try:
            lines = [raw for raw in path.read_bytes().split(b"\n") if raw.strip()]
        except OSError:
            lines = []
        kept, steps = [], set()
        for raw in lines:
            value, problem = parse_json_line(raw, STATS_FILE, 0)
            at = value.get("step") if problem is None and isinstance(value, dict) else None
            if _count(at) and at <= step:
                kept.append(raw)
                steps.add(at)
        if len(kept) != len(lines):
            self._stats.close()
            body = b"".join(raw + b"\n" for raw in kept)
            self._replace(STATS_FILE, lambda handle: handle.write(body))
            self._stats = open(path, "a", encoding="utf-8")
        for grid in self.root.glob("grid-*.npz"):
            at = grid.name[len("grid-"):-len(".npz")]
            if not at.isdigit() or int(at) not in steps:
                grid.unlink(missing_ok=True)
        return steps

    def append(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=_json_default,
                          allow_nan=False) + "\n"
        self._stats.write(line)
        self._stats.flush()

    def close(self) -> None:
        if not self._stats.closed:
            self._stats.close()
