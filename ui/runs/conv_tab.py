"""Runs page, one CNN run: its first convolution layer's filters and the feature maps of one
test image at any checkpoint, with a checkpoint slider so a class watches filters form."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import numpy as np
import streamlit as st

from tfcore.rundir import RunPaths, file_stamp
from tfcore.runs import CheckpointList, ConvLayers, ConvView, conv_view, run_conv_layers
from ui.common import cached_chart, current_lang, frame_digest, t
from ui.runs.detail import checkpoint_choices, checkpoint_label
from ui.weights import (
    diverging_scale,
    filter_frame,
    filter_grid_chart,
    grid_chart,
    image_frame,
    reduce_matrix,
)

KEY = "runs.conv"
MAP_SIDE = 32        # a feature map is drawn block-averaged to at most this many cells a side
INPUT_PX = 160       # the input image's side on the page


@st.cache_data(max_entries=64, show_spinner=False)
def _layers(run_dir: str, stamp: object) -> ConvLayers:
    return run_conv_layers(Path(run_dir))


# One restore per (run, checkpoint file, image, layer) for the whole server: moving the
# slider back to a checkpoint already seen is instant. The folder stamp is in the key
# because the filters' shared scale is taken over every checkpoint of the run.
@st.cache_data(max_entries=128, show_spinner=False)
def _view(run_dir: str, number: int, ckpt_stamp: object, folder_stamp: object, image: int,
          layer: str | None) -> ConvView:
    return conv_view(Path(run_dir), number, image, layer)


def filters_tab(listing: CheckpointList, run_dir: Path) -> None:
    """Checkpoint slider, test image and layer; the filters, the image, its feature maps."""
    paths = RunPaths(run_dir)
    layers = _layers(str(run_dir), file_stamp(paths.run_json))
    if not layers.conv:
        st.info(t("runs.conv.none", layers=layers.layers))
        return
    # Another run opens at its own latest checkpoint: a number kept from the run shown
    # before (ckpt-4 of a one-checkpoint run) is not carried over to this one.
    numbers = checkpoint_choices(listing, f"{KEY}.ckpt")
    if not numbers:
        st.info(t("runs.ckpt.none"))
        return
    cols = st.columns([5, 2, 2])
    number = cols[0].select_slider(t("runs.ckpt.pick"), numbers, key=f"{KEY}.ckpt",
                                   format_func=checkpoint_label(listing))
    image = cols[1].number_input(t("runs.conv.image"), min_value=0, step=1,
                                 key=f"{KEY}.image")
    layer = cols[2].selectbox(t("runs.conv.layer"), list(layers.conv), key=f"{KEY}.layer",
                              disabled=len(layers.conv) < 2)
    prefix = listing.get(number).prefix
    view = _view(str(run_dir), number, file_stamp(Path(f"{prefix}.index")),
                 file_stamp(paths.ckpt_dir), int(image), layer)
    _filters(view)
    _maps(view)


def _filters(view: ConvView) -> None:
    st.markdown(f"**{t('runs.conv.filters', layer=view.layer, type=view.layer_type)}**")
    kernel = view.filters
    channel = 0
    if kernel.shape[2] > 1:
        channel = st.columns([1, 3])[0].number_input(
            t("runs.conv.channel", count=kernel.shape[2]), 0, kernel.shape[2] - 1, 0,
            key=f"{KEY}.channel")
    st.caption(t("runs.conv.filters_note", shown=kernel.shape[3], total=view.filters_total,
                 h=kernel.shape[0], w=kernel.shape[1], scale=f"{view.scale:.3g}",
                 count=len(view.growth)))
    cached_chart((KEY, "filters", frame_digest(filter_frame(kernel, channel)), view.scale,
                  current_lang()),
                 lambda: filter_grid_chart(kernel, channel, t("runs.conv.filter_axis"),
                                           t("runs.conv.value"), _columns(kernel.shape[3]),
                                           view.scale),
                 width="content")


def _maps(view: ConvView) -> None:
    left, right = st.columns([1, 4])
    with left:
        label = f"{view.label} ({view.label_name})" if view.label_name and \
            view.label_name != str(view.label) else str(view.label)
        st.markdown(f"**{t('runs.conv.input', index=view.image_index)}**")
        _input_image(view.image)
        st.caption(t("runs.conv.input_note", label=label, count=view.test_count,
                     last=view.test_count - 1))
    with right:
        st.markdown(f"**{t('runs.conv.maps', layer=view.layer)}**")
        stack, factor = _reduced(view.maps)
        note = t("runs.conv.maps_note", shown=view.maps.shape[2], total=view.maps_total,
                 h=view.maps.shape[0], w=view.maps.shape[1])
        if factor > 1:
            note += " " + t("runs.conv.reduced", factor=factor)
        st.caption(note)
        low, high = float(stack.min()), float(stack.max())
        scale = diverging_scale(max(abs(low), abs(high))) if low < 0 else \
            _sequential(high)
        frame = image_frame(stack, "map")
        cached_chart((KEY, "maps", frame_digest(frame), current_lang()),
                     lambda: grid_chart(frame, "map",
                                        t("runs.conv.map_axis"), t("runs.conv.activation"),
                                        scale, _columns(stack.shape[2]), 48),
                     width="content")


def _sequential(high: float) -> alt.Scale:
    return alt.Scale(scheme="viridis", domain=[0.0, high or 1.0])


def _columns(count: int) -> int:
    return max(1, min(count, 8))


def _reduced(maps: np.ndarray) -> tuple[np.ndarray, int]:
    """Feature maps block-averaged so that a side has at most MAP_SIDE cells."""
    _, fr, fc = reduce_matrix(maps[:, :, 0], MAP_SIDE)
    if fr == 1 and fc == 1:
        return maps, 1
    return np.stack([reduce_matrix(maps[:, :, i], MAP_SIDE)[0]
                     for i in range(maps.shape[2])], axis=-1), max(fr, fc)


def _input_image(image: np.ndarray) -> None:
    """The test image: RGB as a picture, otherwise its first channel as grey cells."""
    if image.ndim == 3 and image.shape[2] == 3:
        low, high = float(image.min()), float(image.max())
        st.image((image - low) / ((high - low) or 1.0), width=INPUT_PX)
        return
    plane = image if image.ndim == 2 else image[:, :, 0]
    reduced, _, _ = reduce_matrix(plane, 64)
    frame = image_frame(reduced[:, :, None], "image")
    chart = alt.Chart(frame).mark_rect().encode(
        x=alt.X("col:O", axis=None), y=alt.Y("row:O", axis=None),
        color=alt.Color("value:Q", scale=alt.Scale(scheme="greys"), legend=None),
        tooltip=[alt.Tooltip("row:O", title=t("chart.tip.row")),
                 alt.Tooltip("col:O", title=t("chart.tip.col")),
                 alt.Tooltip("value:Q", format=".3f", title=t("chart.tip.value"))],
    ).properties(width=INPUT_PX, height=INPUT_PX)
    st.altair_chart(chart, width="content")
