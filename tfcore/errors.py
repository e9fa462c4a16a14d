"""Typed engine errors whose message a person can act on.

Every error carries an English ``message`` plus a translation ``key`` and ``params`` so a
page can show the same message in the reader's language. ``details`` holds structured
extras (for example the located problems of a spec).
"""

from __future__ import annotations

from typing import Any, Mapping


class TFLabError(Exception):
    """Base class of all engine errors meant to be shown to a person."""

    default_key = "errors.generic"

    def __init__(
        self,
        message: str,
        *,
        key: str | None = None,
        params: Mapping[str, Any] | None = None,
        details: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.key = key or self.default_key
        self.params = dict(params or {})
        self.details = details

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message


class SpecError(TFLabError):
    """A model spec is invalid; ``details`` lists every located problem."""

    default_key = "errors.spec"


class DatasetError(TFLabError):
    """A dataset cannot be found, read or used."""

    default_key = "errors.dataset"


class DeviceError(TFLabError):
    """A device setting cannot be applied on this machine."""

    default_key = "errors.device"


class CheckpointError(TFLabError):
    """A checkpoint is missing, damaged or does not fit the model."""

    default_key = "errors.checkpoint"


class RunError(TFLabError):
    """A run directory is missing, damaged or in the wrong state for the request."""

    default_key = "errors.run"


class WorkspaceError(TFLabError):
    """A path escapes the workspace or a workspace file cannot be written."""

    default_key = "errors.workspace"


class WeightsError(TFLabError):
    """A weight edit or initialization request is invalid."""

    default_key = "errors.weights"


class TimingError(TFLabError):
    """A timing request is invalid or failed."""

    default_key = "errors.timing"
