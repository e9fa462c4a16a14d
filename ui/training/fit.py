"""The Train form's fit check: the engine's rule (``tfcore.training.fit_problems`` on the
spec's shapes, the worker's refusal) with the page's own wording, which names the form's
remedies."""

from __future__ import annotations

from typing import Any

from tfcore.model import ModelSpec
from tfcore.training import FitProblem, fit_problems as engine_problems, spec_shapes

# engine key -> the page's message (same params)
PAGE_KEYS = {"train.err.input_shape": "train.shape_mismatch",
             "train.err.classes": "train.classes_mismatch"}


def fit_problems(spec: ModelSpec, info: Any, loss: str | None = None) -> list[FitProblem]:
    """Every reason ``spec`` cannot train on a dataset described by ``info`` with ``loss``,
    keyed for the page."""
    return [FitProblem(PAGE_KEYS.get(p.key, p.key), p.params)
            for p in engine_problems(spec_shapes(spec), info, loss)]
