"""Tracing lab (G2, G3, G5) and AutoGraph viewer (G4) reproduce the tutorial."""

from __future__ import annotations

import pytest

from tfcore.errors import TimingError
from tfcore.timing.autograph import EXAMPLES, TRUSTED_ENV, run_custom, run_example
from tfcore.timing.tracing import G2_SEQUENCE, PRINT_TEXT, TraceArg, run_tracing


def test_g2_six_traces_for_the_tutorial_sequence() -> None:
    result = run_tracing("print_twice", G2_SEQUENCE())
    assert result.trace_count == 6
    assert result.traced_arguments == ["tf.constant(1, dtype=tf.int32)",
                                       "tf.constant(0.1, dtype=tf.float32)",
                                       "1", "2", "0.1", "0.2"]
    assert [c.traced for c in result.calls] == [True, False, False, True, False,
                                                True, True, False, True, True, False]
    # the Python print runs only while tracing; tf.print on every call
    assert [len(c.python_print) for c in result.calls] == [int(c.traced) for c in result.calls]
    assert all(c.python_print == (PRINT_TEXT,) for c in result.calls if c.traced)
    assert [c.tf_print for c in result.calls] == [
        ("1",), ("2",), ("2",), ("0.1",), ("0.2",), ("1",), ("2",), ("1",), ("0.1",),
        ("0.2",), ("0.1",)]
    assert len(result.concrete_functions) == 6
    assert any("int32" in sig for sig in result.concrete_functions)
    assert any("Literal[0.2]" in sig for sig in result.concrete_functions)


def test_input_signature_traces_once_and_refuses_other_dtypes() -> None:
    result = run_tracing("print_twice", G2_SEQUENCE(), input_signature="float32")
    assert result.trace_count == 1
    assert result.calls[0].error and "TypeError" in result.calls[0].error  # int32 tensor
    assert result.calls[2].error is None and result.calls[2].result == "2.0"  # numpy cast
    assert all(c.error is None for c in result.calls[3:])


def test_reduce_retracing_generalizes_shapes() -> None:
    args = [TraceArg("tensor", 1.0, "float32", size) for size in (1, 2, 3, 4)]
    assert run_tracing("print_twice", args).trace_count == 4
    relaxed = run_tracing("print_twice", args, reduce_retracing=True)
    assert relaxed.trace_count == 2
    assert any("None" in sig for sig in relaxed.concrete_functions)


def test_g3_variable_updated_inside_counts_one_two_three() -> None:
    result = run_tracing("variable_counter", calls=3)
    assert [c.result for c in result.calls] == ["1.0", "2.0", "3.0"]
    assert result.trace_count == 1


def test_g5_tensor_array_values() -> None:
    result = run_tracing("tensor_array", calls=2)
    assert [c.result for c in result.calls] == ["0.0, 1.0, 2.0"] * 2
    assert [c.traced for c in result.calls] == [True, False]


def test_tracing_lab_refuses_bad_input() -> None:
    with pytest.raises(TimingError, match="Unknown tracing-lab function"):
        run_tracing("nope", [])
    with pytest.raises(TimingError, match="Received: kind='list'"):
        run_tracing("print_twice", [TraceArg("list", 1)])


def test_g4_if_else_source_has_the_converted_conditional() -> None:
    result = run_example("square_if_positive", 3)
    assert "if x > 0" in result.source
    assert "ag__.if_stmt" in result.converted
    assert result.eager_result == result.graph_result == "9"
    assert run_example("square_if_positive", -1).graph_result == "0"
    assert any(op.endswith("If") for op in result.graph_ops)


@pytest.mark.parametrize("name, value, expected", [
    ("collatz_steps", 27, "111"), ("sum_of_squares", 5, "30"),
    ("squares_array", 4, "[0, 1, 4, 9]")])
def test_loops_run_the_same_eagerly_and_as_graph(name: str, value: int, expected: str) -> None:
    result = run_example(name, value)
    assert result.eager_result == result.graph_result == expected
    assert "ag__.for_stmt" in result.converted or "ag__.while_stmt" in result.converted
    assert any("While" in op for op in result.graph_ops)


def test_autograph_examples_check_their_input() -> None:
    assert set(EXAMPLES) == {"square_if_positive", "collatz_steps", "sum_of_squares",
                             "squares_array"}
    with pytest.raises(TimingError, match="Received: x=0"):
        run_example("collatz_steps", 0)


def test_free_form_code_is_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TRUSTED_ENV, raising=False)
    with pytest.raises(TimingError) as info:
        run_custom("def f(x):\n    return x\n", 1)
    assert info.value.key == "timing.error.untrusted"


def test_free_form_code_runs_on_a_trusted_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TRUSTED_ENV, "1")
    result = run_custom("def twice_if_big(x):\n    if x > 2:\n        x = x * 2\n"
                        "    return x\n", 5)
    assert result.name == "twice_if_big" and "ag__.if_stmt" in result.converted
    assert result.graph_result == "10"


def test_sequence_text_reads_the_tutorial_sequence() -> None:
    from tfcore.timing.tracing import G2_TEXT, parse_sequence

    assert parse_sequence(G2_TEXT) == G2_SEQUENCE()
    assert parse_sequence("tf.float32:1*3")[0].size == 3
    with pytest.raises(TimingError, match="Received: 'xx:1'"):
        parse_sequence("xx:1")
