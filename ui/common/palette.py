"""The colours of a data set's classes, the same in every chart that shows them (the live
decision boundary and the end-of-run one): Playground's blue and orange first, then
Tableau's ten."""

from __future__ import annotations

CLASS_COLORS = ("#0877bd", "#f59322", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


def class_color(code: int) -> str:
    """The colour of class ``code`` (repeating after ten)."""
    return CLASS_COLORS[code % len(CLASS_COLORS)]


def class_colors(count: int) -> list[str]:
    """The colours of classes ``0 .. count - 1``."""
    return [class_color(i) for i in range(count)]
