"""One widget group, shared by pages, to choose a dataset: offline sets, TensorFlow
Datasets by name, or uploads. Returns a DatasetRequest; loading is the caller's job
(see ``load_with_spinner``)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from tfcore.data import (
    DEFAULT_DATASET,
    SUGGESTED,
    DatasetBundle,
    DatasetInfo,
    DatasetRequest,
    DecodeJob,
    csv_columns,
    dataset_names,
    dataset_title,
    decoded_apart,
    default_data_dir,
    list_uploads,
    load_dataset,
    on_disk,
    save_upload,
)
from tfcore.errors import TFLabError
from ui.common import choose, kept, pick, plain, show_error, t, workspace

SOURCES = ("builtin", "tfds", "upload")
UPLOAD_KINDS = {"csv": ["csv", "txt"], "npz": ["npz"], "images": ["zip"]}
POINT_SETS = ("circles", "xor", "spirals", "blobs")
IMAGE_SIZES = (0, 28, 32, 64, 96, 128, 224, 256)
# slider ranges (low, high, step, default); a link's value is checked against them
RANGES = {"n_samples": (50, 2000, 50, 400), "noise": (0.0, 0.5, 0.05, 0.1),
          "classes": (2, 8, 1, 3), "val": (0.0, 0.5, 0.05, 0.1), "test": (0.0, 0.5, 0.05, 0.2)}


def pick_dataset(key: str, default: str = DEFAULT_DATASET,
                 model_shape: tuple | None = None) -> DatasetRequest | None:
    """Render the dataset widgets under ``key``; the chosen request, or None if incomplete.

    Every choice is kept across page switches. ``model_shape`` (the model's input shape)
    sets the default size and channels of an uploaded image folder.
    """
    source = kept(st.radio, t("data.source"), SOURCES, horizontal=True, key=f"{key}.source",
                  format_func=lambda s: t(f"data.source.{s}"))
    if source == "builtin":
        name, options = _builtin(key, default)
    elif source == "tfds":
        name, options = _tfds(key)
    else:
        name, options = _upload(key, model_shape)
    if name is None:
        return None
    val, test, seed = _splits(key, name)
    return DatasetRequest(name=name, options=options, val_fraction=val,
                          test_fraction=test, seed=seed)


def _builtin(key: str, default: str) -> tuple[str, dict]:
    names = dataset_names()
    name = kept(st.selectbox, t("data.dataset"), names, key=f"{key}.name", allowed=names,
                index=names.index(default) if default in names else 0,
                format_func=lambda n: pick(dataset_title(n)))
    st.caption(t(f"data.about.{name}"))
    options: dict = {}
    if name in POINT_SETS:
        cols = st.columns(3 if name == "blobs" else 2)
        names = ("n_samples", "noise", "classes")[:len(cols)]
        for col, option in zip(cols, names):
            options[option] = _slider(col, f"data.opt.{option}", option, key)
    return name, options


def _slider(where: Any, label: str, name: str, key: str) -> Any:
    """A slider with the range of ``RANGES[name]``, kept across pages."""
    low, high, step, default = RANGES[name]
    return kept(where.slider, t(label), low, high, value=default, step=step, key=f"{key}.{name}")


def _tfds(key: str) -> tuple[str | None, dict]:
    ready = on_disk()
    st.caption(t("data.tfds.on_disk", dir=str(default_data_dir()),
                 names=", ".join(ready) or t("data.tfds.none")))
    suggested = [""] + sorted(set(SUGGESTED) | set(ready))
    suggestion = kept(st.selectbox, t("data.tfds.suggested"), suggested, allowed=suggested,
                      key=f"{key}.tfds_suggest",
                      format_func=lambda n: n or t("data.tfds.type_below"))
    typed = kept(st.text_input, t("data.tfds.name"), value=suggestion or "",
                 key=f"{key}.tfds_name", placeholder="mnist").strip()
    options: dict = {}
    size = kept(st.selectbox, t("data.opt.image_size"), IMAGE_SIZES, key=f"{key}.tfds_size",
                format_func=lambda s: t("data.opt.native") if s == 0 else f"{s} x {s}")
    if size:
        options["image_size"] = size
    if kept(st.checkbox, t("data.tfds.download"), key=f"{key}.tfds_download"):
        options["download"] = True
        st.caption(t("data.tfds.download_help"))
    if not typed:
        st.info(t("data.tfds.enter_name"))
        return None, options
    return f"tfds:{typed}", options


def _image_defaults(model_shape: tuple | None) -> tuple[int, int]:
    """Image size and channels that fit a model taking (size, size, channels) inputs;
    64 x 64 RGB when the model says nothing."""
    if model_shape and len(model_shape) == 3 and model_shape[0] == model_shape[1] \
            and isinstance(model_shape[0], int) and model_shape[0] > 0:
        return int(model_shape[0]), int(model_shape[2]) if model_shape[2] in (1, 3) else 3
    return 64, 3


def _upload(key: str, model_shape: tuple | None = None) -> tuple[str | None, dict]:
    kind = kept(st.radio, t("data.upload.kind"), list(UPLOAD_KINDS), horizontal=True,
                key=f"{key}.upload_kind", format_func=lambda k: t(f"data.upload.kind.{k}"))
    st.caption(t(f"data.upload.help.{kind}"))
    uploaded = st.file_uploader(t("data.upload.file"), type=UPLOAD_KINDS[kind],
                                key=f"{key}.file.{kind}")
    saved_key = f"{key}.saved.{kind}"
    if uploaded is not None and st.session_state.get(f"{saved_key}.id") != uploaded.file_id:
        try:
            stored = save_upload(uploaded.getvalue(), uploaded.name, workspace())
        except TFLabError as exc:
            show_error(exc)
        else:
            st.session_state[f"{saved_key}.id"] = uploaded.file_id
            # the file just uploaded becomes the chosen one (also over an earlier choice)
            choose(f"{key}.upload_file.{kind}", stored)
            st.success(t("data.upload.saved", name=plain(stored)))
    files = list_uploads(kind, workspace())
    if not files:
        st.info(t("data.upload.none"))
        return None, {}
    arg = kept(st.selectbox, t("data.upload.choose"), files, key=f"{key}.upload_file.{kind}",
               allowed=files)
    options: dict = {}
    if kind == "csv":
        try:
            columns = csv_columns(arg)
        except TFLabError as exc:
            show_error(exc)
            return None, {}
        if len(columns) < 2:
            st.warning(t("data.upload.csv_columns"))
            return None, {}
        options["target"] = kept(st.selectbox, t("data.opt.target"), columns, allowed=columns,
                                 index=len(columns) - 1, key=f"{key}.target.{arg}")
        task = kept(st.radio, t("data.opt.task"), ["auto", "classification", "regression"],
                    horizontal=True, key=f"{key}.task.{arg}",
                    format_func=lambda s: t(f"data.task.{s}"))
        if task != "auto":
            options["task"] = task
        if not kept(st.checkbox, t("data.opt.normalize"), value=True, key=f"{key}.norm.{arg}"):
            options["normalize"] = False
    elif kind == "images":
        cols = st.columns(2)
        size, channels = _image_defaults(model_shape)
        sizes = sorted(set(IMAGE_SIZES[1:]) | {size})
        # keyed by the model's size: choosing another model brings its size back as default
        options["image_size"] = kept(cols[0].selectbox, t("data.opt.image_size"), sizes,
                                     index=sizes.index(size), key=f"{key}.img_size.{size}",
                                     allowed=sizes, format_func=lambda s: f"{s} x {s}")
        options["channels"] = kept(cols[1].radio, t("data.opt.channels"), [3, 1],
                                   horizontal=True, index=[3, 1].index(channels),
                                   key=f"{key}.channels.{channels}",
                                   format_func=lambda c: t(f"data.opt.channels.{c}"))
    return f"upload:{kind}:{arg}", options


def _splits(key: str, name: str) -> tuple[float, float, int]:
    with st.expander(t("data.split")):
        if name == "house_prices":
            st.caption(t("data.split.fixed"))
        cols = st.columns(3)
        val = _slider(cols[0], "data.split.val", "val", key)
        test = _slider(cols[1], "data.split.test", "test", key)
        seed = int(kept(cols[2].number_input, t("data.split.seed"), 0, 2**31 - 1, value=0, step=1,
                        key=f"{key}.seed"))
    return float(val), float(test), seed


def load_with_spinner(request: DatasetRequest) -> DatasetBundle | None:
    """Load a request (cached in-process) under a spinner; show errors; None on failure."""
    downloading = bool(request.options.get("download"))
    text = t("data.downloading", name=request.name) if downloading else t("data.loading")
    try:
        with st.spinner(text):
            return load_dataset(request)
    except TFLabError as exc:
        show_error(exc)
        return None


DECODE_POLL_S = 0.5       # how often a page reads a decode's progress


def dataset_info(request: DatasetRequest, key: str) -> DatasetInfo | None:
    """What a page needs to know of a dataset. A built-in set loads here, under a spinner.
    An upload is read in a child process (``tfcore.data.offload``), so one session's big
    zip neither stalls nor swells the server every other session runs in: while it reads,
    its progress shows with a Cancel, and the page completes itself when it is read.
    None until then, or on a refusal (shown, located, with "Read it again")."""
    if not decoded_apart(request):
        bundle = load_with_spinner(request)
        return bundle.info if bundle is not None else None
    try:
        job = DecodeJob(workspace().root / "cache", request).start()
        state = job.state()
    except TFLabError as exc:
        show_error(exc)
        return None
    if state.state == "done":
        return state.info
    if state.state == "running":
        _decoding(job, key)
        return None
    if state.state == "cancelled":
        st.info(t("data.decode.cancelled", name=_file(request)), icon=":material/block:")
    elif state.error is not None:
        show_error(state.error)
    st.button(t("data.decode.again"), key=f"{key}.decode_again", icon=":material/refresh:",
              on_click=job.retry)
    return None


def _file(request: DatasetRequest) -> str:
    """The uploaded file's name of an ``upload:<kind>:<file>`` request, as typed."""
    return plain(request.name.split(":", 2)[-1])


def _decoding(job: DecodeJob, key: str) -> None:
    """The decode's progress and Cancel, redrawn every ``DECODE_POLL_S`` until it ends;
    then the whole page runs again with the result."""
    @st.fragment(run_every=DECODE_POLL_S)
    def progress() -> None:
        state = job.state()
        if state.state != "running":
            st.rerun()
        name = _file(job.request)
        seconds = int(state.seconds)
        if state.total:
            st.progress(min(1.0, state.done / state.total),
                        text=t("data.decode.progress", name=name, done=state.done,
                               total=state.total, seconds=seconds))
        else:
            st.progress(0.0, text=t("data.decode.running", name=name, seconds=seconds))
        st.button(t("data.decode.cancel"), key=f"{key}.decode_cancel",
                  icon=":material/cancel:", on_click=job.cancel)

    progress()
