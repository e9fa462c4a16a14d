"""The insight charts' data (ui/insight/*_charts.py): percentiles of binned histograms,
evenly spread snapshots, the neuron picture's caps and links, a regression's plane, the
layers a chart draws; every frame small and in the model's order."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.rundir import InsightGrid
from tfcore.rundir.insight_format import parse_meta
from ui.insight.boundary_charts import (LEGEND_GAP, PAD, TITLE_PAD, boundary_chart,
                                        boundary_frames, plane_room)
from ui.insight.chart_style import NORMAL, PRESENTER, spread
from ui.insight.network_charts import (MAX_COLUMNS, MAX_DRAWN, network_chart, network_columns,
                                       network_frames)
from ui.insight.stats_charts import (BANDS, MAX_LINES, TINY, layer_frame, layer_order,
                                     percentiles, pick_records)

TITLES = {"x1": "x1", "x2": "x2", "class": "class", "label": "label", "value": "value",
          "prediction": "prediction", "weight": "weight", "unit": "unit"}


def _meta(units=(4, 3, 2), output="binary", neurons=True) -> object:
    names = [f"d{i}" for i in range(len(units))]
    inputs = (2, *units[:-1])
    return parse_meta({
        "format": 1, "every": 5, "probe": 8,
        "layers": [{"name": n, "kind": "Dense", "units": u, "activation": "relu",
                    "params": (i + 1) * u, "variables": [f"{n}/kernel", f"{n}/bias"]}
                   for n, u, i in zip(names, units, inputs)],
        "plane": {"lo": [-1, -2], "hi": [1, 2], "size": 6, "neuron_size": 4,
                  "points": [[0, 0], [0.5, 1]], "labels": [0, 1.5 if output == "value" else 1],
                  "output": output, "class_names": []},
        "neurons": names if neurons else []})


def _grid(meta, step=5, kernels=True) -> InsightGrid:
    rng = np.random.default_rng(step)
    size = meta.plane.size
    neurons = {n: rng.normal(size=(meta.layer(n).units, 4, 4)).astype(np.float32)
               for n in meta.neurons}
    widths = [2] + [meta.layer(n).units for n in meta.neurons]
    kernel = {n: rng.normal(size=(widths[i], meta.layer(n).units)).astype(np.float32)
              for i, n in enumerate(meta.neurons)} if kernels else {}
    cls = None if meta.plane.output == "value" else (rng.random((size, size)) > 0.5)
    return InsightGrid(step, rng.random((size, size)).astype(np.float32),
                       None if cls is None else cls.astype(np.int64), neurons, kernel)


def test_percentiles_interpolate_inside_the_bins() -> None:
    assert percentiles([10, 10], 0.0, 2.0, (0, 2500, 5000, 10000)) == \
        pytest.approx([0.0, 0.5, 1.0, 2.0])
    assert percentiles([0, 4, 0, 0], 0.0, 4.0, (0, 5000, 10000)) == \
        pytest.approx([1.0, 1.5, 2.0])
    assert percentiles([0, 0], 1.0, 1.0) == [1.0] * len(BANDS)


def test_spread_keeps_the_first_and_last_and_at_most_the_limit() -> None:
    assert spread(5, 10).tolist() == [0, 1, 2, 3, 4]
    picked = spread(1000, 200)
    assert len(picked) <= 200 and picked[0] == 0 and picked[-1] == 999
    records = [{"step": s} for s in range(0, 5000, 5)]
    kept = pick_records(records, 50)
    assert len(kept) <= 50 and kept[-1]["step"] == 4995


def test_the_neuron_picture_draws_every_unit_and_each_links_sign() -> None:
    meta = _meta()
    frames = network_frames(meta, _grid(meta))
    per_unit = frames["pixels"].groupby(["layer", "unit"]).size()
    assert len(per_unit) == 2 + 4 + 3 + 2 and set(per_unit) == {16}
    links = frames["links"]
    assert len(links) == 2 * 4 + 4 * 3 + 3 * 2
    assert ((links["w"] >= 0) == (links["sign"] == "+")).all()
    assert frames["labels"]["text"].tolist() == ["x1 · x2", "d0", "d1", "d2"]


def test_a_wide_layer_is_capped_and_says_so_and_missing_kernels_draw_no_links() -> None:
    meta = _meta(units=(30, 2))
    frames = network_frames(meta, _grid(meta, kernels=False))
    drawn = frames["pixels"].groupby("layer")["unit"].nunique().tolist()
    assert drawn == [2, MAX_DRAWN, 2]
    assert frames["labels"]["text"].tolist()[1] == f"d0 ({MAX_DRAWN}/30)"
    assert len(frames["links"]) == 0
    spec = network_chart(meta, _grid(meta), {"value": "v", "weight": "w", "unit": "u"})
    assert spec["width"] <= NORMAL.network_width
    assert len(spec["datasets"]["links"]) == 2 * MAX_DRAWN + MAX_DRAWN * 2


def test_many_layers_keep_the_output_and_at_most_the_column_limit() -> None:
    meta = _meta(units=(3,) * 12)
    columns = network_columns(meta, _grid(meta))
    assert len(columns) == MAX_COLUMNS and columns[-1].name == "d11"


def test_a_regression_plane_colours_by_value() -> None:
    meta = _meta(output="value")
    grid = _grid(meta)
    frames = boundary_frames(meta, grid)
    assert len(frames["regions"]) == 36 and "value" in frames["regions"]
    assert frames["regions"]["value"].tolist() == pytest.approx(grid.conf.ravel().tolist())
    assert frames["points"]["label"].tolist() == [0.0, 1.5]


def test_classes_are_named_by_number_without_names_and_paler_when_unsure() -> None:
    meta = _meta()
    grid = _grid(meta)
    frames = boundary_frames(meta, grid)
    assert set(frames["regions"]["class"]) <= {"0", "1"}
    sure = InsightGrid(5, np.ones((6, 6), np.float32), grid.cls)
    unsure = InsightGrid(5, np.full((6, 6), 0.5, np.float32), grid.cls)
    strong = set(boundary_frames(meta, sure)["regions"]["fill"])
    pale = set(boundary_frames(meta, unsure)["regions"]["fill"])
    assert strong.isdisjoint(pale)


def test_gradient_lines_follow_the_model_order_and_are_capped() -> None:
    meta = _meta(units=(2,) * 40)
    records = [{"step": s, "grad_norm": {f"d{i}": 0.0 if i == 0 else 10.0 ** -i
                                         for i in range(40)}} for s in (1, 2)]
    names = layer_order(records, meta, "grad_norm")
    assert len(names) == MAX_LINES and names[0] == "d0" and names[-1] == "d39"
    frame = layer_frame(records, "grad_norm", names, TINY)
    assert frame["value"].min() == TINY                    # a zero norm on the log axis
    assert frame.groupby("step").size().tolist() == [MAX_LINES] * 2


@pytest.mark.parametrize("style", [NORMAL, PRESENTER], ids=["normal", "presenter"])
def test_the_boundary_fills_its_box_with_fixed_room_around_a_square_plot(style) -> None:
    """The boundary takes its box's size (the page makes the box as wide as the column and
    ``above - beside`` taller, :func:`ui.insight.panels.boundary_css`): the room its axes
    and legend take is fixed, so its plot is square at any width."""
    from ui.insight.panels import boundary_css

    meta = _meta()
    spec = boundary_chart(meta, _grid(meta), TITLES, style)
    assert spec["width"] == spec["height"] == "container"
    assert spec["autosize"] == {"type": "fit", "contains": "padding"}
    layer = spec["layer"][0]["encoding"]
    x_axis, y_axis = layer["x"]["axis"], layer["y"]["axis"]
    assert x_axis["minExtent"] == x_axis["maxExtent"] == style.axis_y
    assert y_axis["minExtent"] == y_axis["maxExtent"] == style.axis_x
    assert x_axis["labelBound"] and y_axis["labelBound"]
    legend = spec["layer"][1]["encoding"]["color"]["legend"]
    assert legend["orient"] == "top" and legend["offset"] == LEGEND_GAP
    beside, above = plane_room(style)
    assert beside == style.axis_x + TITLE_PAD + style.font + 2 * PAD
    assert above == (style.axis_y + TITLE_PAD + style.font + 2 * PAD
                     + style.legend + LEGEND_GAP)
    css = boundary_css("box", style)
    assert f"height: calc(100cqw + {above - beside}px)" in css
    assert "width: min(100%, max(" in css and "calc(100vh - " in css
