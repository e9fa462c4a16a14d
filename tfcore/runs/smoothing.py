"""TensorBoard's scalar smoothing: the one function the live chart and the Runs page draw."""

from __future__ import annotations

import math

import numpy as np

_FADED = 1e-17      # below this, 1 - weight ** n rounds to exactly 1.0


def smooth(values, weight: float) -> np.ndarray:
    """TensorBoard's debiased exponential moving average of a series (weight 0 = none).

    ``last = weight * last + (1 - weight) * v`` over the finite values, each shown as
    ``last / (1 - weight ** n)`` (n = finite values so far), so the curve starts at the first
    value instead of near zero. A NaN or infinite point is left as it is and does not
    poison the points after it; a constant series stays exactly constant. One vectorised
    pass (``scipy.signal.lfilter``): 100,000 points take a few milliseconds.

    Raises:
        ValueError: ``weight`` is outside [0, 1).
    """
    if not 0 <= weight < 1:
        raise ValueError(f"smoothing must be in [0, 1). Received: {weight}")
    values = np.array(values, dtype=np.float64)
    if weight == 0 or len(values) == 0 or np.all(values == values[0]):
        return values
    from scipy.signal import lfilter

    finite = np.isfinite(values)
    count = int(finite.sum())
    if count:
        debias = np.ones(count)
        fading = min(count, math.ceil(math.log(_FADED) / math.log(weight)))
        debias[:fading] -= weight ** np.arange(1, fading + 1)
        values[finite] = lfilter([1 - weight], [1, -weight], values[finite]) / debias
    return values
