"""The TensorFlow side of an insight snapshot (:class:`tfcore.training.insight_probe.Probe`)
for a model of ``COMPILE_FROM`` parameters or more: the forward and backward pass over the
probe batch (eagerly for the first passes, then as one compiled graph) and the weight
histograms (TensorFlow ops run eagerly: as fast as a compiled graph for a handful of ops per
variable, with no tracing to pay), each reduced where it runs so that only small results
leave TensorFlow. The pass also runs eagerly for a smaller model or one the graph cannot
trace; the probe decides which.

The probe is passed in (``model``, ``extractor``, ``loss``, ``variables``, ``scale``, its
``compiled`` state: None, compile at the next call; False, eagerly; else the traced
function; and ``tf_hist``: histograms by TensorFlow ops, else numpy).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def gradient_pass(probe: Any, x: Any, y: Any) -> tuple[list, list]:
    """One forward and backward pass over the probe batch, reduced where it ran: per
    variable the sum of its gradient's squares (float64, unscaled; None where it has
    no gradient), per ReLU layer which units (channels) output more than 0 for some
    example. Only these small results leave TensorFlow: copied out and reduced in
    numpy, a 3.2-million-weight gradient cost 0.25 s per snapshot."""
    import tensorflow as tf

    with tf.GradientTape() as tape:
        if probe.extractor is not None:
            outputs = probe.extractor(x, training=False)
            pred, acts = outputs[0], list(outputs[1:])
        else:
            pred, acts = probe.model(x, training=False), []
        loss = tf.cast(probe.loss(y, tf.cast(pred, tf.float32)), tf.float32)
        extra = list(probe.model.losses)
        if extra:
            loss += tf.add_n([tf.cast(v, tf.float32) for v in extra])
        scaled = loss * probe.scale
    grads = tape.gradient(scaled, probe.variables)
    squares = [None if g is None else sum_of_squares(tf.convert_to_tensor(g), probe.scale)
               for g in grads]
    alive = [tf.reduce_any(tf.reshape(act > 0, [-1, tf.shape(act)[-1]]), axis=0)
             for act in acts]
    return squares, alive


def sum_of_squares(gradient: Any, scale: float) -> Any:
    """The sum of the squares of ``gradient / scale``, a float64 scalar: summed in float32
    (a quarter less of a CNN snapshot's pass than casting 3.2 million values to float64
    first: no 26 MB copy), and again in float64 only when the float32 sum is not finite (a
    gradient above about 1e19 overflows its square: an exploding run's norm stays a number
    up to 1e154)."""
    import tensorflow as tf

    single = tf.reduce_sum(tf.square(tf.cast(gradient, tf.float32) / scale))
    return tf.cond(tf.math.is_finite(single), lambda: tf.cast(single, tf.float64),
                   lambda: tf.reduce_sum(tf.square(tf.cast(gradient, tf.float64) / scale)))


def graph_gradients(probe: Any, x: Any, y: Any) -> tuple[list, list] | None:
    """:func:`gradient_pass` as one compiled graph (traced by the first call): run
    eagerly, its op-by-op dispatch costs a CNN's snapshot about half as much again (0.10 s
    against 0.07 s), but the trace costs 0.3 s to 0.5 s once, more than a short run's
    whole budget, so the probe calls this only from its ``EAGER_PASSES``-th pass on. None:
    the probe measures eagerly (a small model, or one the graph cannot trace)."""
    import tensorflow as tf

    if probe.compiled is None:
        probe.compiled = tf.function(lambda x, y: gradient_pass(probe, x, y),
                                     reduce_retracing=True)
    if probe.compiled is not False:
        try:
            return probe.compiled(x, y)
        except Exception:  # noqa: BLE001 - a model the graph cannot trace
            probe.compiled = False
    return None


def hist_pass(variables: list, bins: int) -> list:
    """Per variable: its finite values' lowest and highest, the ``bins`` counts over
    that range (widened by 0.5 each side when they are equal), and how many values are
    not finite. Run eagerly (it branches on values): a variable whose sum is finite has no
    NaN and no infinity (either makes the sum one), and is binned in three passes over its
    values instead of eight (the CNN's 3.2-million-weight kernel: 9 ms instead of 20)."""
    import tensorflow as tf

    out = []
    for variable in variables:
        flat = tf.reshape(tf.cast(tf.convert_to_tensor(variable), tf.float32), [-1])
        if int(tf.size(flat)) and bool(tf.math.is_finite(tf.reduce_sum(flat))):
            lo, hi = tf.reduce_min(flat), tf.reduce_max(flat)
            low, high = (lo - 0.5, hi + 0.5) if bool(lo == hi) else (lo, hi)
            out.append((lo, hi, tf.histogram_fixed_width(flat, [low, high], nbins=bins),
                        tf.constant(0, tf.int32)))
            continue
        finite = tf.math.is_finite(flat)
        size = tf.size(flat)
        nonfinite = size - tf.reduce_sum(tf.cast(finite, tf.int32))
        lo = tf.reduce_min(tf.where(finite, flat, np.inf))
        hi = tf.reduce_max(tf.where(finite, flat, -np.inf))
        some = nonfinite < size
        same = tf.equal(lo, hi)
        low = tf.where(some, tf.where(same, lo - 0.5, lo), 0.0)
        high = tf.where(some, tf.where(same, hi + 0.5, hi), 1.0)
        counts = tf.histogram_fixed_width(tf.where(finite, flat, low), [low, high],
                                          nbins=bins)
        counts -= tf.one_hot(0, bins, dtype=tf.int32) * nonfinite   # placed in bin 0
        out.append((lo, hi, counts, nonfinite))
    return out


def from_graph(lo: np.ndarray, hi: np.ndarray, counts: np.ndarray,
               nonfinite: np.ndarray) -> dict:
    """:func:`tfcore.training.insight_probe.histogram`'s dict from :func:`hist_pass`'s
    arrays for one variable."""
    counts = [int(c) for c in counts]
    bad = int(nonfinite)
    if not sum(counts):                   # no finite value, or none at all (size 0)
        return {"lo": 0.0, "hi": 0.0, "counts": [0] * len(counts), "nonfinite": bad}
    low, high = float(lo), float(hi)
    if low == high:
        low, high = low - 0.5, high + 0.5
    out = {"lo": low, "hi": high, "counts": counts}
    if bad:
        out["nonfinite"] = bad
    return out


def tf_histograms(probe: Any, bins: int) -> dict | None:
    """Per trainable variable (by path) its histogram, computed by :func:`hist_pass`'s
    TensorFlow ops, run eagerly: for the CNN preset (3.3 million weights) 0.03 s a
    snapshot, as fast as the same ops compiled once their 0.4 s trace is paid, and 15 times
    faster than numpy (a copy and temporaries of every kernel). None: the probe measures in
    numpy (a small model, or a variable TensorFlow cannot read)."""
    if probe.tf_hist:
        try:
            parts = hist_pass(probe.variables, bins)
            return {v.path: from_graph(*(np.asarray(x) for x in part))
                    for v, part in zip(probe.variables, parts)}
        except Exception:  # noqa: BLE001 - a variable TensorFlow cannot read
            probe.tf_hist = False
    return None
