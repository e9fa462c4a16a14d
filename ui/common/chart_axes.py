"""Axis settings every chart shares.

A step (or epoch) axis counts whole numbers: ticks at whole steps only, printed with
thousands separators (``12,000``), never ``2.0`` (a short run's default ticks read as if
steps came in fractions).
"""

from __future__ import annotations

STEP_AXIS = {"format": ",d", "tickMinStep": 1}
