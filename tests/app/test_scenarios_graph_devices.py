"""Scenarios G2-G5 and D2 of SCENARIOS.md, driven on their pages with the seed's numbers.

G1 (tests/app/test_timing_page.py::test_g1_reproduction_sets_the_result_beside_the_tutorial),
D1 and D3 (tests/app/test_issue15_panels.py) are driven elsewhere; docs/scenarios.md lists
every scenario with its test.
"""

from __future__ import annotations

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from ui.common.i18n import catalog

EN = catalog("en")
TIMING = "app_pages/timing.py"


@pytest.fixture(scope="module")
def timing_page():
    return open_page(TIMING, "en")


def _trace_table(at):
    return next(d.value for d in at.dataframe if EN["timing.trace.col.traced"] in d.value.columns)


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _run_lab(at, function: str):
    at.selectbox(key="timing.trace.fn").set_value(function).run()
    at.button(key="timing.trace.run").click().run()
    assert_clean(at, "en")
    return _trace_table(at)


def test_G2_tracing_six_traces(timing_page) -> None:
    """Eager vs graph -> Tracing lab: keep "G2: print vs tf.print" and the tutorial's call
    sequence, press Run: int32 tensor, float32 tensor, Python 1, 2, 0.1, 0.2 trace (six)."""
    table = _run_lab(timing_page, "print_twice")
    traced = table[table[EN["timing.trace.col.traced"]] == EN["timing.trace.yes"]]
    assert traced[EN["timing.trace.col.argument"]].tolist() == [
        "tf.constant(1, dtype=tf.int32)", "tf.constant(0.1, dtype=tf.float32)",
        "1", "2", "0.1", "0.2"]
    assert len(table) == 11                                     # the tutorial's 11 calls
    # the Python print runs only when the function traces; tf.print on every call
    printed = table[EN["timing.trace.col.print"]] != ""
    assert printed.tolist() == (table[EN["timing.trace.col.traced"]] != "").tolist()
    assert table[EN["timing.trace.col.tfprint"]].tolist() == [
        "1", "2", "2", "0.1", "0.2", "1", "2", "1", "0.1", "0.2", "0.1"]
    assert _metrics(timing_page)[EN["timing.trace.count"]] == "6"


def test_G3_variable_assigned_in_tf_function(timing_page) -> None:
    """Tracing lab: choose "G3: a variable updated inside", keep 3 calls, press Run: the
    outside variable reads 1, 2, 3 and the function traced once."""
    table = _run_lab(timing_page, "variable_counter")
    assert table[EN["timing.trace.col.result"]].tolist() == ["1.0", "2.0", "3.0"]
    assert table[EN["timing.trace.col.tfprint"]].tolist() == ["1", "2", "3"]
    assert table[EN["timing.trace.col.count"]].tolist() == [1, 1, 1]


def test_G4_autograph_if_else_to_code(timing_page) -> None:
    """Eager vs graph -> AutoGraph: the if/else example; type 3, then -3: the converted
    source calls ag__.if_stmt, the graph holds a (Stateless)If and both modes agree."""
    at = timing_page
    assert at.selectbox(key="timing.ag.example").value == "square_if_positive"
    for value, expected in ((3, "9"), (-3, "0")):
        at.number_input(key="timing.ag.input.square_if_positive").set_value(value).run()
        assert_clean(at, "en")
        shown = _metrics(at)
        assert shown[EN["timing.ag.eager"]] == shown[EN["timing.ag.graph"]] == expected
    assert any("ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body" in c.value for c in at.code)
    assert any("def square_if_positive(x):" in c.value for c in at.code)
    ops = EN["timing.ag.ops"].split("{")[0]
    assert any(c.value.startswith(ops) and "If" in c.value for c in at.caption)


def test_G5_tensor_array_in_tf_function(timing_page) -> None:
    """Tracing lab: choose "G5: TensorArray", press Run: the TensorArray written at 0, 1, 2
    reads back 0.0, 1.0, 2.0; AutoGraph tab, "TensorArray in a loop" with 5: [0, 1, 4, 9, 16]."""
    at = timing_page
    table = _run_lab(at, "tensor_array")
    assert table[EN["timing.trace.col.result"]].tolist() == ["0.0, 1.0, 2.0"] * 3
    assert table[EN["timing.trace.col.count"]].tolist() == [1, 1, 1]
    at.selectbox(key="timing.ag.example").set_value("squares_array").run()
    assert_clean(at, "en")
    shown = _metrics(at)
    assert shown[EN["timing.ag.eager"]] == shown[EN["timing.ag.graph"]] == "[0, 1, 4, 9, 16]"


def test_D2_place_tensors_try_gpu() -> None:
    """Device placement page: read try_gpu(0) and try_all_gpus() (the CPU when there is no
    GPU), place a tensor on the device chosen and read its .device."""
    from tfcore.labs.placement import num_gpus

    at = open_page("app_pages/placement.py", "en")
    assert_clean(at, "en")
    gpus = num_gpus()
    shown = _metrics(at)
    assert shown["try_gpu(0)"] == ("/GPU:0" if gpus else "/CPU:0")
    assert shown["try_all_gpus()"] == (", ".join(f"/GPU:{i}" for i in range(gpus))
                                        or "/CPU:0")
    assert "/CPU:0" in shown[EN["foundations.placement.devices"]]
    at.selectbox(key="foundations.place.dev").set_value("/CPU:0").run()
    assert EN["foundations.placement.result"].format(
        requested="/CPU:0", device="/job:localhost/replica:0/task:0/device:CPU:0") in [
        m.value for m in at.markdown]
    assert any("tf.device('/CPU:0')" in c.value and ".device" in c.value for c in at.code)
