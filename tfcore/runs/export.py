"""Export a run's checkpoint (.keras, SavedModel, .weights.h5) or the whole run (zip);
continue training from a checkpoint as a new run.

Exports are written under ``<workspace>/exports/<run id>/`` so a page can offer them for
download; nothing inside the run folder is changed.
"""

from __future__ import annotations

import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tfcore.errors import CheckpointError
from tfcore.messages import names
from tfcore.runs.restore import restore_run, run_request


@dataclass(frozen=True)
class ExportResult:
    """One exported file ready for download."""

    path: Path
    fmt: str
    size: int
    mime: str


def _keras(model: Any, base: Path) -> Path:
    path = base.with_suffix(".keras")
    model.save(str(path))
    return path


def _weights(model: Any, base: Path) -> Path:
    path = base.parent / (base.name + ".weights.h5")
    model.save_weights(str(path))
    return path


def _savedmodel(model: Any, base: Path) -> Path:
    folder = base.parent / (base.name + "_savedmodel")
    shutil.rmtree(folder, ignore_errors=True)
    model.export(str(folder), verbose=False)
    return _zip_folder(folder, base.parent / (base.name + "_savedmodel.zip"), folder.name)


EXPORTERS: dict[str, tuple[Callable[[Any, Path], Path], str]] = {
    "keras": (_keras, "application/octet-stream"),
    "savedmodel": (_savedmodel, "application/zip"),
    "weights_h5": (_weights, "application/x-hdf5"),
}


def _zip_folder(folder: Path, target: Path, arc_root: str) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                archive.write(path, f"{arc_root}/{path.relative_to(folder)}")
    return target


def export_checkpoint(run_dir: Path | str, exports_root: Path | str, fmt: str,
                      number: int | None = None) -> ExportResult:
    """Restore checkpoint ``number`` (latest: None) and write it in format ``fmt``.

    Raises:
        CheckpointError: unknown format, or a checkpoint that does not fit the model.
    """
    if fmt not in EXPORTERS:
        raise CheckpointError(key="runs.err.format",
                              params={"fmt": fmt, "choices": names(sorted(EXPORTERS))})
    run_dir = Path(run_dir)
    restored = restore_run(run_dir, number, require_complete=True)
    folder = Path(exports_root) / run_dir.name
    folder.mkdir(parents=True, exist_ok=True)
    make, mime = EXPORTERS[fmt]
    path = make(restored.model, folder / f"{run_dir.name}-{restored.prefix.name}")
    return ExportResult(path=path, fmt=fmt, size=path.stat().st_size, mime=mime)


def export_run_zip(run_dir: Path | str, exports_root: Path | str) -> ExportResult:
    """The whole run folder as one zip (run.json, metrics, checkpoints, model, logs)."""
    run_dir = Path(run_dir)
    folder = Path(exports_root) / run_dir.name
    folder.mkdir(parents=True, exist_ok=True)
    path = _zip_folder(run_dir, folder / f"{run_dir.name}.zip", run_dir.name)
    return ExportResult(path=path, fmt="zip", size=path.stat().st_size, mime="application/zip")


def continue_training(runs_root: Path | str, run_id: str, workspace_root: Path | str,
                      number: int | None = None) -> str:
    """Start a new run with the same request whose model starts from checkpoint ``number``
    (its weights are exported to ``.weights.h5`` and named as ``initial_weights``).

    Returns the new run id. Raises the errors of :func:`tfcore.training.jobs.start_run`.
    """
    from tfcore.training import start_run

    run_dir = Path(runs_root) / run_id
    request = run_request(run_dir)
    exported = export_checkpoint(run_dir, Path(workspace_root) / "exports", "weights_h5",
                                 number)
    body = {k: v for k, v in request.items() if k not in ("created", "versions")}
    body["name"] = f"{request.get('name') or run_id}-cont"
    body["initial_weights"] = str(exported.path.relative_to(Path(workspace_root)))
    body["resume_of"] = {"run": run_id, "checkpoint": exported.path.name}
    return start_run(Path(runs_root), body)
