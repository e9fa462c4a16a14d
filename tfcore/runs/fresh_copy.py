"""Weights into a fresh copy of the model, whose outputs are equal (scenario T5).

:func:`fresh_copy_outputs` restores a run's checkpoint into its model, saves that model's
weights to a ``.weights.h5`` file, builds a second model from the same spec (fresh random
weights), loads the file into it, and runs both on the same input. The tutorial's
``clone.load_weights(...)``; ``Y_clone == Y``.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tfcore.errors import CheckpointError

MAX_EXAMPLES = 16


@dataclass(frozen=True)
class FreshCopy:
    """Both models' outputs for the same input, and whether they are equal."""

    checkpoint: str
    inputs: np.ndarray          # the input both models saw (test examples)
    restored: np.ndarray        # the model restored from the checkpoint
    fresh_before: np.ndarray    # the fresh copy before loading (its own random weights)
    fresh: np.ndarray           # the fresh copy after loading the saved weights
    max_abs_diff: float

    @property
    def equal(self) -> bool:
        return bool(np.array_equal(self.restored, self.fresh))

    def to_dict(self) -> dict:
        return {"checkpoint": self.checkpoint, "restored": self.restored.tolist(),
                "fresh_before": self.fresh_before.tolist(), "fresh": self.fresh.tolist(),
                "max_abs_diff": self.max_abs_diff, "equal": self.equal}


def _flat(out) -> np.ndarray:
    first = out[0] if isinstance(out, (list, tuple)) else out
    array = np.asarray(first, dtype=np.float64)
    return array.reshape(len(array), -1)


def fresh_copy_outputs(run_dir: Path | str, number: int | None = None,
                       count: int = 4) -> FreshCopy:
    """Restore checkpoint ``number`` (latest: None), copy its weights through a file into a
    freshly built model, and return both models' outputs on the first ``count`` test
    examples.

    Raises:
        CheckpointError: the checkpoint does not fit the run's model; RunError: the run
            has no run.json.
    """
    from tfcore.data import DatasetRequest, load_dataset
    from tfcore.model import build_model, from_dict
    from tfcore.runs.restore import restore_run, run_request

    if not 1 <= count <= MAX_EXAMPLES:
        raise CheckpointError(key="freshcopy.err.count",
                              params={"count": count, "max": MAX_EXAMPLES})
    request = run_request(run_dir)
    restored = restore_run(run_dir, number, require_complete=True)
    x = np.asarray(load_dataset(DatasetRequest.from_dict(request["dataset"])).x_test[:count])
    fresh = build_model(from_dict(request["spec"]))
    if not fresh.built or not fresh.weights:
        fresh(x[:1])                       # deferred input: build from a first batch
    before = _flat(fresh(x, training=False))
    with tempfile.TemporaryDirectory(prefix="tflab-fresh-") as folder:
        path = str(Path(folder) / "model.weights.h5")
        restored.model.save_weights(path)
        fresh.load_weights(path)
    ours, theirs = _flat(restored.model(x, training=False)), _flat(fresh(x, training=False))
    return FreshCopy(checkpoint=restored.prefix.name, inputs=x, restored=ours,
                     fresh_before=before, fresh=theirs,
                     max_abs_diff=float(np.max(np.abs(ours - theirs))) if ours.size else 0.0)
