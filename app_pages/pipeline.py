"""tf.data pipelines (T6): map, shuffle, batch, cache, prefetch; order, batches, throughput;
image files read from class folders."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from tfcore.data import dataset_title
from tfcore.labs import (
    DATASETS,
    PipelineSpec,
    first_batches,
    label_order,
    pipeline_code,
    throughput,
)
from ui.common import guarded, pick, t
from ui.foundations import (
    composition_chart,
    folder_section,
    label_order_chart,
    throughput_chart,
)

BUFFERS = (1, 4, 16, 64, 256, 1024, 2048)
BATCHES = (8, 16, 32, 64, 128)

st.title(t("foundations.pipeline.title"))
st.markdown(t("foundations.pipeline.intro"))

with st.container(border=True):
    st.subheader(t("foundations.pipeline.steps"))
    titles_ds = {name: pick(dataset_title(name)) for name in DATASETS}
    dataset = st.selectbox(t("foundations.pipeline.dataset"), DATASETS,
                           format_func=titles_ds.get, key="fp.dataset")
    c1, c2, c3, c4 = st.columns(4)
    normalize = c1.checkbox(t("foundations.pipeline.normalize"), True, key="fp.normalize")
    resize = c1.slider(t("foundations.pipeline.resize"), 0, 32, 0, 4, key="fp.resize",
                       help=t("foundations.pipeline.resize_help"))
    augment = c1.checkbox(t("foundations.pipeline.augment"), False, key="fp.augment")
    buffer = c2.select_slider(t("foundations.pipeline.buffer"), BUFFERS, 1, key="fp.buffer")
    seed = c2.number_input(t("foundations.pipeline.seed"), 0, 10_000, 0, key="fp.seed")
    batch = c3.select_slider(t("foundations.pipeline.batch"), BATCHES, 32, key="fp.batch")
    cache = c4.checkbox(t("foundations.pipeline.cache"), False, key="fp.cache")
    prefetch = c4.checkbox(t("foundations.pipeline.prefetch"), True, key="fp.prefetch")
    sort = c4.checkbox(t("foundations.pipeline.sort"), True, key="fp.sort")

spec = PipelineSpec(dataset=dataset, normalize=normalize, resize=int(resize),
                    augment=augment, shuffle_buffer=int(buffer),
                    batch_size=int(batch), cache=cache, prefetch=prefetch,
                    sort_by_label=sort, seed=int(seed))
titles = {"position": t("foundations.chart.position"), "label": t("foundations.chart.label"),
          "batch": t("foundations.chart.batch"), "count": t("foundations.chart.count"),
          "rate": t("foundations.chart.rate"), "variant": t("foundations.chart.variant")}

with guarded():
    st.code(pipeline_code(spec), language="python")

    st.subheader(t("foundations.pipeline.order"))
    order = label_order(spec, batches=10)
    st.metric(t("foundations.pipeline.first_classes"), order.first_batch_classes)
    st.caption(t("foundations.pipeline.order_help"))
    left, right = st.columns(2)
    left.altair_chart(label_order_chart(order.positions, order.labels, order.batch,
                                        titles), width="stretch")
    right.altair_chart(composition_chart(order.composition, titles), width="stretch")

    st.subheader(t("foundations.pipeline.batches"))
    for view in first_batches(spec, 2):
        st.markdown(t("foundations.pipeline.batch_n", n=view.index + 1,
                      shape=list(view.images.shape), labels=view.labels[:16].tolist()))
        images = [((img - img.min()) / max(float(img.max() - img.min()), 1e-6))
                  for img in view.images[:16]]
        st.image(images, width=48, caption=[str(int(v)) for v in view.labels[:16]])

st.subheader(t("foundations.pipeline.speed"))
st.caption(t("foundations.pipeline.speed_help"))
c1, c2, c3 = st.columns(3)
epochs = c1.number_input(t("foundations.pipeline.epochs"), 1, 5, 2, key="fp.epochs")
map_ms = c2.select_slider(t("foundations.pipeline.map_ms"), (0.0, 0.2, 0.5, 1.0), 0.2,
                          key="fp.map_ms")
work_ms = c3.select_slider(t("foundations.pipeline.work_ms"), (0.0, 2.0, 5.0, 10.0), 5.0,
                           key="fp.work_ms")
if st.button(t("foundations.pipeline.measure"), key="fp.measure"):
    with guarded(), st.spinner(t("foundations.pipeline.measuring")):
        st.session_state["fp.rows"] = throughput(
            replace(spec, augment=False), epochs=int(epochs), work_ms=float(work_ms),
            slow_map_ms=float(map_ms))
rows = st.session_state.get("fp.rows")
if rows:
    names = [t(f"foundations.variant.{row.variant}") for row in rows]
    st.altair_chart(throughput_chart(names, [r.per_second for r in rows], titles),
                    width="stretch")
    st.dataframe(pd.DataFrame({
        t("foundations.chart.variant"): names,
        t("foundations.pipeline.elements"): [r.elements for r in rows],
        t("foundations.pipeline.seconds"): [round(r.seconds, 3) for r in rows],
        t("foundations.chart.rate"): [round(r.per_second) for r in rows],
    }), hide_index=True)

folder_section()
