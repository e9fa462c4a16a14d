"""Device placement (D2): put tensors on devices, read .device, mix devices, try_gpu;
MirroredStrategy (D3): number of devices, a mirrored variable's per-replica values."""

import pandas as pd
import streamlit as st

from tfcore.labs import logical_devices, mix, num_gpus, place, try_all_gpus, try_gpu
from ui.common import guarded, t, tensorflow_ready
from ui.foundations import mirrored_section

tensorflow_ready()
st.title(t("foundations.placement.title"))
st.markdown(t("foundations.placement.intro"))

devices = logical_devices()
cols = st.columns(3)
cols[0].metric(t("foundations.placement.devices"), ", ".join(devices))
cols[1].metric(t("foundations.placement.try_gpu"), try_gpu(0))
cols[2].metric(t("foundations.placement.try_all"), ", ".join(try_all_gpus()))
st.code("def try_gpu(i=0):\n    if len(tf.config.list_logical_devices('GPU')) >= i + 1:\n"
        "        return f'/GPU:{i}'\n    return '/CPU:0'\n\n"
        "def try_all_gpus():\n    n = len(tf.config.list_logical_devices('GPU'))\n"
        "    return [f'/GPU:{i}' for i in range(n)] or ['/CPU:0']", language="python")
if not num_gpus():
    st.info(t("foundations.placement.no_gpu"))

offered = list(dict.fromkeys(devices + ["/GPU:0", "/GPU:1"]))

st.subheader(t("foundations.placement.place"))
device = st.selectbox(t("foundations.placement.device"), offered,
                      index=offered.index(try_gpu(0)), key="foundations.place.dev")
with guarded():
    placed = place(device)
    st.markdown(t("foundations.placement.result", requested=placed.requested,
                  device=placed.device))
    st.code(placed.code, language="python")
    st.dataframe(pd.DataFrame(placed.values), hide_index=True)

st.subheader(t("foundations.placement.mix"))
cols = st.columns(3)
dev_a = cols[0].selectbox(t("foundations.placement.dev_a"), offered, key="foundations.mix.a")
dev_b = cols[1].selectbox(t("foundations.placement.dev_b"), offered,
                          index=len(devices) - 1, key="foundations.mix.b")
run_on = cols[2].selectbox(t("foundations.placement.run_on"), [""] + offered,
                           format_func=lambda d, auto=t("foundations.placement.auto"): d or auto,
                           key="foundations.mix.run")
with guarded():
    mixed = mix(dev_a, dev_b, run_on or None)
    st.markdown(t("foundations.placement.mixed", a=mixed.a_device, b=mixed.b_device,
                  c=mixed.result_device))
    st.caption(t("foundations.placement.copied" if mixed.copied
                 else "foundations.placement.not_copied"))
    st.code(mixed.code, language="python")

mirrored_section()          # D3: MirroredStrategy over logical devices, mirrored variables
