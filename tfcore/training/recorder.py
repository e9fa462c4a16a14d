"""Batched per-step recording: ``metrics.jsonl`` lines and TensorBoard scalars.

Every training step is recorded, so the per-record cost must be tiny: records are kept in
memory and written a few times a second with one ``write`` call, and TensorBoard events
are serialized directly (see :class:`TBScalars`), one event per step.

A run's ``tb/`` folder is laid out as ``keras.callbacks.TensorBoard`` lays it out
(:class:`TBRuns`): one sub-run folder per writer, ``train/`` and ``validation/`` (and
``test/`` for the final evaluation), so TensorBoard overlays train and validation curves
of one tag (``epoch_loss``) on one chart.
"""

from __future__ import annotations

import itertools
import math
import os
import struct
import time
from pathlib import Path
from typing import Mapping, Sequence

from tfcore.rundir import MetricsWriter

_FILE_IDS = itertools.count()


def finite(logs: Mapping[str, float]) -> dict:
    """JSON-safe copy: NaN and infinity become None."""
    return {k: (float(v) if math.isfinite(float(v)) else None) for k, v in logs.items()}


def compact(value: float) -> float | None:
    """A float32-precise JSON number (7 significant digits), None when not finite."""
    value = float(value)
    return float(f"{value:.7g}") if math.isfinite(value) else None


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        bits, value = value & 0x7F, value >> 7
        if value:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)


class TBScalars:
    """A TensorBoard event file written directly: one ``Event`` per step holding every
    scalar of that step as a ``simple_value``, encoded here (the few protobuf fields are
    fixed) and framed by TensorFlow's C++ record writer. A few µs a step, where an eager
    ``tf.summary.scalar`` costs about 130 µs a scalar."""

    def __init__(self, tb_dir: Path) -> None:
        import socket

        import tensorflow as tf

        tb_dir = Path(tb_dir)
        tb_dir.mkdir(parents=True, exist_ok=True)
        name = (f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}."
                f"{os.getpid()}.{next(_FILE_IDS)}.v2")
        self.writer = tf.io.TFRecordWriter(str(tb_dir / name))
        version = b"brain.Event:2"                   # Event.file_version (field 3)
        self.writer.write(b"\x09" + struct.pack("<d", time.time())
                          + b"\x1a" + _varint(len(version)) + version)
        self._prefixes: dict[str, bytes] = {}

    def _prefix(self, tag: str) -> bytes:
        """Summary.value (field 1) holding Value{tag (1), simple_value (2, float)}: all
        but the 4 value bytes."""
        if tag not in self._prefixes:
            raw = tag.encode("utf-8")
            value = b"\x0a" + _varint(len(raw)) + raw + b"\x15"
            self._prefixes[tag] = b"\x0a" + _varint(len(value) + 4) + value
        return self._prefixes[tag]

    def write(self, tags: Sequence[str], steps: Sequence[int],
              rows: Sequence[Sequence[float]], times: Sequence[float] | None = None) -> None:
        """Write ``rows[i][j]`` as scalar ``tags[j]`` at ``steps[i]`` (NaN stays NaN)."""
        prefixes, pack, now = [self._prefix(t) for t in tags], struct.pack, time.time()
        for i, (step, row) in enumerate(zip(steps, rows)):
            summary = b"".join(p + pack("<f", v) for p, v in zip(prefixes, row))
            self.writer.write(b"\x09" + pack("<d", times[i] if times else now)
                              + b"\x10" + _varint(int(step))
                              + b"\x2a" + _varint(len(summary)) + summary)

    def write_events(self, events: Sequence[bytes]) -> None:
        """Write already serialized ``Event`` protos (the model graph)."""
        for event in events:
            self.writer.write(event)

    def flush(self) -> None:
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


TRAIN_RUN, VALIDATION_RUN, TEST_RUN = "train", "validation", "test"


class TBRuns:
    """A run's ``tb/`` folder in Keras' layout: a :class:`TBScalars` file per sub-run
    (``train``, ``validation``, ``test``), opened when the sub-run is first written, so
    every attempt of a run writes one new event file in each sub-run it uses."""

    def __init__(self, tb_dir: Path) -> None:
        self.tb_dir = Path(tb_dir)
        self.files: dict[str, TBScalars] = {}

    def file(self, run: str) -> TBScalars:
        if run not in self.files:
            self.files[run] = TBScalars(self.tb_dir / run)
        return self.files[run]

    def write_graph(self, model, sample) -> None:
        """The model's graph in ``train/`` (:mod:`tfcore.training.tb_graph`)."""
        from tfcore.training.tb_graph import graph_events

        self.file(TRAIN_RUN).write_events(graph_events(model, sample))

    def flush(self) -> None:
        for file in self.files.values():
            file.flush()

    def close(self) -> None:
        for file in self.files.values():
            file.close()


class RecordBuffer:
    """Pending ``metrics.jsonl`` records and TensorBoard rows, written on :meth:`flush`."""

    def __init__(self, metrics_path: Path, tb_dir: Path | None) -> None:
        self.file = MetricsWriter(metrics_path)
        self.tb = TBRuns(tb_dir) if tb_dir is not None else None
        self.records: list[dict] = []
        self._tags: dict[tuple, tuple[str, tuple[str, ...]]] = {}
        self.rows: dict[tuple, tuple[list[int], list[list[float]], list[float]]] = {}

    def add(self, record: dict) -> None:
        """Queue one ``metrics.jsonl`` record."""
        self.records.append(record)

    def add_scalars(self, run: str, step: int, logs: Mapping[str, float],
                    when: float | None = None, tag: str = "{}") -> None:
        """Queue TensorBoard scalars of sub-run ``run``, tagged ``tag.format(name)``
        (``batch_{}``, ``epoch_{}``, ``evaluation_{}_vs_iterations``)."""
        if self.tb is None or not logs:
            return
        key = (run, tag, tuple(logs))
        tags = self._tags.get(key)
        if tags is None:
            tags = self._tags[key] = (run, tuple(tag.format(name) for name in logs))
        steps, rows, times = self.rows.setdefault(tags, ([], [], []))
        steps.append(step)
        rows.append(tuple(logs.values()))
        times.append(when or time.time())

    def flush(self) -> int:
        """Write everything pending; returns how many records were written."""
        count = len(self.records)
        write_many = getattr(self.file, "append_many", None)
        if write_many is not None:
            write_many(self.records)
        else:                                     # an older writer: one line per call
            for record in self.records:
                self.file.append(record)
        self.records = []
        if self.tb is not None:
            for (run, tags), (steps, rows, times) in self.rows.items():
                self.tb.file(run).write(tags, steps, rows, times)
            self.rows = {}
            self.tb.flush()
        return count

    def close(self) -> None:
        self.flush()
        self.file.close()
        if self.tb is not None:
            self.tb.close()
