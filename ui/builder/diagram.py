"""The model graph as Graphviz DOT, drawn by ``st.graphviz_chart`` (no system graphviz).

Each node shows the layer's name, type, output shape and parameters; a re-used (shared)
layer is drawn in the same colour as its owner with a dashed "shares" edge; layers with a
problem have a red border.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

from tfcore.model import FUNCTIONAL, ModelSpec

_SHARED_COLOURS = ("#fde68a", "#bbf7d0", "#bfdbfe", "#fbcfe8", "#ddd6fe", "#fed7aa")
COMPACT = 60
"""Above this many layers (an imported application) nodes show name and type only, small
and close together, so that hundreds of layers still lay out and draw quickly."""


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def spec_to_dot(spec: ModelSpec, rows: Mapping[str, tuple[str, int | None]] | None = None,
                bad: Iterable[str] = (), params_label: str = "params",
                shares_label: str = "shares", input_label: str = "Input",
                output_label: Callable[[int], str] = "output {}".format) -> str:
    """DOT source of the graph.

    Args:
        rows: per layer name, (output shape text, parameter count) from the summary.
        bad: names of layers (or inputs) with a problem.
        params_label, shares_label, input_label: words drawn in the page's language;
            ``output_label(n)`` names the n-th output (from 1).
    """
    rows = rows or {}
    bad = set(bad)
    compact = len(spec.layers) > COMPACT
    owners = sorted({e.shares for e in spec.layers if e.shares})
    colour = {o: _SHARED_COLOURS[n % len(_SHARED_COLOURS)] for n, o in enumerate(owners)}
    lines = ["digraph model {", "  rankdir=TB; ranksep=0.3; nodesep=0.3;" if not compact else
             "  rankdir=TB; ranksep=0.12; nodesep=0.12;",
             '  node [shape=box, style="rounded,filled", fillcolor="#f8fafc", '
             f'fontname="Helvetica", fontsize={10 if not compact else 8}'
             # room around the text: the browser's font is wider than Graphviz reckons,
             # and a long name or a Chinese word touched the box's border
             + (', margin="0.2,0.08"' if not compact
                else ", height=0.2, margin=\"0.06,0.02\"") + "];",
             f'  edge [color="#64748b"{", arrowsize=0.4" if compact else ""}];']
    for item in spec.inputs:
        shape = "(None, " + ", ".join("None" if d is None else str(d) for d in item.shape) + ")"
        lines.append(f"  {_quote('in:' + item.name)} [shape=ellipse, fillcolor=\"#e0f2fe\", "
                     f"label={_quote(item.name + chr(10) + input_label + ' ' + shape)}];")
    for entry in spec.layers:
        shape, params = rows.get(entry.name, ("?", None))
        label = [entry.name, _short_type(entry) if not entry.layers else
                 f"{entry.type} [{', '.join(c.name for c in entry.layers)}]", str(shape)]
        if params is not None:
            label.append(f"{params:,} {params_label}")
        if compact:
            label = [f"{entry.name} · {_short_type(entry)}"]
        fill = colour.get(entry.shares or entry.name, "#f8fafc")
        border = ', color="#dc2626", penwidth=2' if entry.name in bad else ""
        lines.append(f"  {_quote(entry.name)} [label={_quote(chr(10).join(label))}, "
                     f"fillcolor=\"{fill}\"{border}];")
    inputs = {i.name for i in spec.inputs}
    if spec.kind == FUNCTIONAL:
        for entry in spec.layers:
            for source in entry.inputs:
                node = "in:" + source if source in inputs else source
                lines.append(f"  {_quote(node)} -> {_quote(entry.name)};")
        for n, name in enumerate(spec.outputs):
            lines.append(f"  {_quote('out:' + name)} [shape=plaintext, style=\"\", "
                         f"label={_quote(output_label(n + 1))}];")
            lines.append(f"  {_quote(name)} -> {_quote('out:' + name)};")
    else:
        prev = "in:" + spec.inputs[0].name if spec.inputs else None
        for entry in spec.layers:
            if prev:
                lines.append(f"  {_quote(prev)} -> {_quote(entry.name)};")
            prev = entry.name
    for entry in spec.layers:
        if entry.shares:
            lines.append(f"  {_quote(entry.shares)} -> {_quote(entry.name)} [style=dashed, "
                         f"color=\"#a16207\", label={_quote(shares_label)}, constraint=false, "
                         "dir=none];")
    lines.append("}")
    return "\n".join(lines)


def _short_type(entry) -> str:
    """The type, or for a raw Keras entry its class (``Add``, ``Functional``)."""
    if entry.type == "KerasRaw":
        keras = dict(entry.config).get("keras")
        if isinstance(keras, dict) and keras.get("class_name"):
            return str(keras["class_name"])
    return entry.type
