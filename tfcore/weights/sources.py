"""Models whose weights come from a training run: its latest checkpoint or its model.keras.

A run directory (see :mod:`tfcore.rundir.store`) holds the spec in ``run.json``; the model is
built from it and then filled from ``ckpt/`` (``tf.train.Checkpoint(model=...)``) or,
when there is no checkpoint, from the final ``model.keras`` (loaded in safe mode).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfcore.errors import WeightsError
from tfcore.jsonio import read_json
from tfcore.model import ModelSpec, from_dict
from tfcore.rundir import RunPaths

FRESH, CHECKPOINT, FINAL_MODEL = "fresh", "checkpoint", "model"


@dataclass(frozen=True)
class RunModel:
    """A model rebuilt from a run: its spec, where the weights came from, the step."""

    run_id: str
    spec: ModelSpec
    model: Any
    source: str
    checkpoint: str | None = None
    step: int | None = None


def _latest_checkpoint(paths: RunPaths) -> str | None:
    import tensorflow as tf

    from tfcore.workspace import check_regular

    if not paths.ckpt_dir.is_dir():
        return None
    state = paths.ckpt_dir / "checkpoint"
    if state.exists() or state.is_symlink():      # a FIFO here would block TensorFlow
        check_regular(state, "ckpt/checkpoint", paths.ckpt_dir)
    latest = tf.train.latest_checkpoint(str(paths.ckpt_dir))
    if latest:
        for item in paths.ckpt_dir.glob(Path(latest).name + ".*"):
            check_regular(item, f"ckpt/{item.name}", paths.ckpt_dir)
    return latest


def has_weights(run_dir: Path) -> bool:
    """True when the run left a checkpoint or a final model to read weights from."""
    paths = RunPaths(Path(run_dir))
    has_ckpt = paths.ckpt_dir.is_dir() and any(paths.ckpt_dir.glob("*.index"))
    return paths.run_json.is_file() and (has_ckpt or paths.model.is_file())


def run_spec(run_dir: Path) -> ModelSpec:
    """The model spec a run was started with.

    Raises:
        WeightsError: no readable run.json with a spec; SpecError: the spec is invalid.
    """
    request = read_json(RunPaths(Path(run_dir)).run_json)
    if not isinstance(request, dict) or not isinstance(request.get("spec"), dict):
        raise WeightsError(key="errors.weights_run_spec",
                           params={"run": Path(run_dir).name})
    return from_dict(request["spec"])


def model_from_run(run_dir: Path) -> RunModel:
    """Rebuild a run's model and load its latest weights (checkpoint, else model.keras).

    Raises:
        WeightsError: no spec, or weights that do not fit the rebuilt model.
    """
    import tensorflow as tf

    from tfcore.model import build_model

    paths = RunPaths(Path(run_dir))
    spec = run_spec(paths.root)
    model = build_model(spec)
    latest = _latest_checkpoint(paths)
    try:
        if latest:
            tf.train.Checkpoint(model=model).restore(latest).expect_partial()
            match = re.search(r"-(\d+)$", latest)
            return RunModel(paths.run_id, spec, model, CHECKPOINT, Path(latest).name,
                            int(match.group(1)) if match else None)
        if paths.model.is_file():
            from tfcore.weights.table import load_model_file

            final = load_model_file(paths.model)
            model.set_weights(final.get_weights())
            return RunModel(paths.run_id, spec, model, FINAL_MODEL, paths.model.name)
    except WeightsError:
        raise
    except Exception as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WeightsError(key="errors.weights_run_not_fit",
                           params={"run": paths.run_id, "message": message}) from exc
    return RunModel(paths.run_id, spec, model, FRESH)
