"""Typed engine errors whose message a person can act on.

Every error carries a translation ``key`` and structured ``params`` (names, numbers, lists
of choices: never English phrases); its English ``message`` is rendered from the engine's
English catalog (:mod:`tfcore.messages`), so a page shows the same message in the reader's
language from the same key. ``details`` holds structured extras (for example the located
problems of a spec).
"""

from __future__ import annotations

from typing import Any, Mapping

from tfcore.messages import DEFAULT_LANG, plain_params, render


class TFLabError(Exception):
    """Base class of all engine errors meant to be shown to a person."""

    default_key = "errors.generic"

    def __init__(
        self,
        message: str | None = None,
        *,
        key: str | None = None,
        params: Mapping[str, Any] | None = None,
        details: Any = None,
    ) -> None:
        self.key = key or self.default_key
        self.params = dict(params or {})
        if message is None:  # the one English source: the engine's catalog
            message = render(self.key, self.params) or self.key
        super().__init__(message)
        self.message = message
        self.details = details

    def text(self, lang: str = DEFAULT_LANG) -> str:
        """The message in ``lang`` (the CLI's ``TFLAB_LANG``); the English ``message`` when
        the engine's catalogs do not have the key."""
        if lang == DEFAULT_LANG:
            return self.message
        return render(self.key, self.params, lang) or self.message

    def plain_params(self) -> dict[str, Any]:
        """``params`` with lists joined and texts rendered in English: what a JSON file of
        plain values (``status.json``'s ``error_params``) can hold."""
        return plain_params(self.params)

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


class LessonError(TFLabError):
    """A lesson cannot be found, read or opened at the step asked for."""

    default_key = "errors.lesson"
