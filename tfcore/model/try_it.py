"""Run a model on a random input and look at what comes out (scenario B1: a (2, 20) input
into Dense(256, relu) -> Dense(10) gives a (2, 10) output).

The input is drawn from a seeded generator, so the same seed gives the same tensor; float
inputs are uniform in [0, 1) as ``tf.random.uniform`` draws them, integer inputs are
uniform in 0..9, boolean inputs fair coin flips.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from tfcore.errors import SpecError
from tfcore.model.spec import ModelSpec

MAX_ELEMENTS = 4_000_000
"""Most numbers a random input (all inputs together) may hold."""
DEFAULT_BATCH = 2
DEFERRED_SHAPE = (DEFAULT_BATCH, 20)
"""The shape offered for a model without input shape (the tutorial's (2, 20))."""


@dataclass(frozen=True)
class TryResult:
    """The random inputs a model was run on and the tensors it returned.

    Attributes:
        inputs: one array per model input, batch axis first.
        outputs: one array per model output (a single-output model has one).
        seed: the generator's seed.
    """

    inputs: tuple[np.ndarray, ...]
    outputs: tuple[np.ndarray, ...]
    seed: int

    @property
    def input_shapes(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(int(d) for d in x.shape) for x in self.inputs)

    @property
    def output_shapes(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(int(d) for d in y.shape) for y in self.outputs)

    def rounded(self, decimals: int = 4) -> tuple[np.ndarray, ...]:
        """The outputs rounded for display (non-float outputs as they are)."""
        return tuple(np.round(y, decimals) if np.issubdtype(y.dtype, np.floating) else y
                     for y in self.outputs)


def _error(key: str, where: str, /, **params: Any) -> SpecError:
    error = SpecError(key=key, params={"where": where, **params})
    error.details = [f"{where}: {error.message}"]
    return error


def default_shapes(spec: ModelSpec, batch: int = DEFAULT_BATCH) -> list[tuple[int, ...]]:
    """One shape per input: the batch, then the input's shape (an unknown size as 1); a
    model without input shape (deferred) gets ``(2, 20)``."""
    if not spec.inputs:
        return [(batch,) + DEFERRED_SHAPE[1:]]
    return [(batch,) + tuple(1 if d is None else int(d) for d in item.shape)
            for item in spec.inputs]


def parse_shape(text: str, where: str = "input") -> tuple[int, ...]:
    """``"2, 20"`` or ``"(2, 20)"`` -> ``(2, 20)``.

    Raises:
        SpecError: ``tryit.bad_shape`` unless it is a list of positive integers with a
            batch axis and at least one more axis.
    """
    parts = [p.strip() for p in str(text).strip().strip("()[]").split(",") if p.strip()]
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        shape = ()
    if len(shape) < 2 or any(d <= 0 for d in shape):
        raise _error("tryit.bad_shape", where, shape=str(text)[:80])
    return shape


def _check_shapes(spec: ModelSpec, shapes: list[tuple[int, ...]]) -> None:
    expected = len(spec.inputs) or 1
    if len(shapes) != expected:
        raise _error("tryit.input_count", "model", expected=expected, count=len(shapes))
    for item, shape in zip(spec.inputs, shapes):
        want = tuple(item.shape)
        if len(shape) - 1 != len(want) or any(
                w is not None and w != s for w, s in zip(want, shape[1:])):
            raise _error("tryit.shape_mismatch", item.name, expected=str((None, *want)),
                         shape=str(shape))
    total = sum(int(np.prod(s)) for s in shapes)
    if total > MAX_ELEMENTS:
        raise _error("tryit.too_large", "model", count=total, limit=MAX_ELEMENTS)


def random_inputs(spec: ModelSpec, shapes: Sequence[tuple[int, ...]],
                  seed: int = 0) -> tuple[np.ndarray, ...]:
    """The seeded random tensors for the model's inputs (see the module docstring)."""
    rng = np.random.default_rng(int(seed))
    dtypes = [i.dtype for i in spec.inputs] or ["float32"]
    out = []
    for shape, dtype in zip(shapes, dtypes):
        if dtype == "bool":
            out.append(rng.random(shape) < 0.5)
        elif dtype.startswith(("int", "uint")):
            out.append(rng.integers(0, 10, size=shape).astype(dtype))
        elif dtype == "string":
            raise _error("tryit.text_input", "model")
        else:
            out.append(rng.random(shape, dtype=np.float64).astype(dtype))
    return tuple(out)


def try_it(spec: ModelSpec, shapes: Sequence[tuple[int, ...] | str] | None = None,
           seed: int = 0) -> TryResult:
    """Build the model and run it once on random inputs of the given shapes.

    Args:
        shapes: one shape per input, batch axis first (tuples or text such as ``"2, 20"``);
            default :func:`default_shapes`.
        seed: the random generator's seed.

    Raises:
        SpecError: a bad or unfitting shape (located at the input), an invalid spec, or
            a model that refuses the input (``tryit.call_failed`` with Keras's message).
    """
    from tfcore.model.build import build_model

    names = [i.name for i in spec.inputs] or ["input"]
    if shapes is None:
        shapes = default_shapes(spec)
    parsed = [parse_shape(s, names[n] if n < len(names) else f"input {n + 1}")
              if isinstance(s, str) else tuple(int(d) for d in s)
              for n, s in enumerate(shapes)]
    _check_shapes(spec, parsed)
    inputs = random_inputs(spec, parsed, seed)
    model = build_model(spec)
    if spec.weights:        # an imported model computes what its file computes
        from tfcore.model.keras_import import load_initial_weights
        from tfcore.workspace import default_workspace

        load_initial_weights(model, spec, default_workspace())
    try:
        result = model(inputs[0] if len(inputs) == 1 else list(inputs), training=False)
    except Exception as exc:  # Keras names the layer that refused the input
        message = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else \
            type(exc).__name__
        raise _error("tryit.call_failed", "model", message=message) from exc
    import keras

    outputs = tuple(np.asarray(keras.ops.convert_to_numpy(y))
                    for y in keras.tree.flatten(result))
    return TryResult(inputs=inputs, outputs=outputs, seed=int(seed))
