"""The tracing lab: call a tf.function with a sequence of arguments and watch it trace.

Scenarios G2 (when a tf.function traces: a Python ``print`` runs only while tracing,
``tf.print`` on every call), G3 (a variable updated inside a tf.function) and G5 (a
TensorArray written and read inside a tf.function). Each call records whether it
traced, the trace count, the concrete functions the function then holds, and what
``print`` and ``tf.print`` output. ``input_signature`` and ``reduce_retracing`` can be
switched on to see their effect.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from tfcore.errors import TimingError
from tfcore.messages import Names, Text
from tfcore.timing.result import short_error

ARG_KINDS = ("tensor", "numpy", "python")
ARG_DTYPES = ("int32", "float32", "int64", "float64")
PRINT_TEXT = "The function is running in Python"


@dataclass(frozen=True)
class TraceArg:
    """One argument: a TensorFlow tensor, a NumPy array or a Python number.

    ``dtype`` also decides a Python number's type: ``int*`` gives ``int``, else ``float``.
    ``size`` 0 makes a scalar; n > 0 a vector of n copies of ``value`` (to see shapes
    retrace, and ``reduce_retracing`` generalize them).
    """

    kind: str
    value: float
    dtype: str = "float32"
    size: int = 0

    def check(self) -> None:
        if self.kind not in ARG_KINDS:
            raise TimingError(key="timing.error.arg_kind",
                              params={"kind": self.kind, "choices": Names(ARG_KINDS)})
        if self.kind != "python" and self.dtype not in ARG_DTYPES:
            raise TimingError(key="timing.error.arg_dtype",
                              params={"dtype": self.dtype, "choices": Names(ARG_DTYPES)})
        if not 0 <= int(self.size) <= 64:
            raise TimingError(key="timing.error.arg_size",
                              params={"size": self.size})

    @property
    def label(self) -> str:
        """How the tutorial writes this argument, e.g. ``tf.constant(1, dtype=tf.int32)``."""
        value = self._python_value()
        if self.kind == "python":
            return repr(value) if not self.size else repr([value] * self.size)
        shown = repr(value) if not self.size else repr([value] * self.size)
        if self.kind == "numpy":
            return f"np.array({shown}, dtype=np.{self.dtype})"
        return f"tf.constant({shown}, dtype=tf.{self.dtype})"

    def _python_value(self) -> Any:
        return int(self.value) if self.dtype.startswith("int") else float(self.value)

    def make(self) -> Any:
        import numpy as np
        import tensorflow as tf

        value = self._python_value()
        data = value if not self.size else [value] * self.size
        if self.kind == "python":
            return data
        if self.kind == "numpy":
            return np.array(data, dtype=self.dtype)
        return tf.constant(data, dtype=self.dtype)


def G2_SEQUENCE() -> list[TraceArg]:  # noqa: N802 - named after the scenario
    """The tutorial's call sequence of scenario G2."""
    return [TraceArg("tensor", 1, "int32"), TraceArg("tensor", 2, "int32"),
            TraceArg("numpy", 2, "int32"), TraceArg("tensor", 0.1, "float32"),
            TraceArg("tensor", 0.2, "float32"), TraceArg("python", 1, "int32"),
            TraceArg("python", 2, "int32"), TraceArg("python", 1, "int32"),
            TraceArg("python", 0.1), TraceArg("python", 0.2), TraceArg("python", 0.1)]


@dataclass(frozen=True)
class CallRecord:
    """What one call did."""

    index: int
    argument: str
    traced: bool
    trace_count: int
    python_print: tuple[str, ...]
    tf_print: tuple[str, ...]
    result: str | None
    error: str | None = None


@dataclass(frozen=True)
class TracingResult:
    """Every call of a tracing-lab run, and the concrete functions held at the end."""

    function: str
    source: str
    input_signature: str | None
    reduce_retracing: bool
    calls: tuple[CallRecord, ...]
    trace_count: int
    concrete_functions: tuple[str, ...] = field(default_factory=tuple)

    @property
    def traced_arguments(self) -> list[str]:
        return [call.argument for call in self.calls if call.traced]


@dataclass(frozen=True)
class LabFunction:
    """A curated tf.function of the lab: its source (shown) and a factory."""

    name: str
    title: Mapping[str, str]
    takes_argument: bool
    source: str
    make: Callable[[list, str], Callable]


def _make_print_function(log: list, stream: str) -> Callable:
    import tensorflow as tf

    def f(x):
        log.append(PRINT_TEXT)
        tf.print(x, output_stream=stream)
        return x
    return f


def _make_counter(log: list, stream: str) -> Callable:
    import tensorflow as tf

    a = tf.Variable(0.0)

    def g():
        log.append(PRINT_TEXT)
        a.assign(a + 1.0)
        tf.print(a, output_stream=stream)
        return a.read_value()
    return g


def _make_tensor_array(log: list, stream: str) -> Callable:
    import tensorflow as tf

    def array_write_and_read():
        log.append(PRINT_TEXT)
        arr = tf.TensorArray(dtype=tf.float32, size=3)
        arr = arr.write(0, tf.constant(0.0))
        arr = arr.write(1, tf.constant(1.0))
        arr = arr.write(2, tf.constant(2.0))
        return arr.read(0), arr.read(1), arr.read(2)
    return array_write_and_read


FUNCTIONS: dict[str, LabFunction] = {f.name: f for f in (
    LabFunction("print_twice", Text("timing.function.print_twice"),
                True, '@tf.function\ndef f(x):\n    print("The function is running in Python")'
                '\n    tf.print(x)\n    return x', _make_print_function),
    LabFunction("variable_counter", Text("timing.function.variable_counter"), False,
                "a = tf.Variable(0.0)\n\n@tf.function\ndef g():\n    a.assign(a + 1.0)\n"
                "    return a", _make_counter),
    LabFunction("tensor_array", Text("timing.function.tensor_array"), False,
                "@tf.function\ndef array_write_and_read():\n"
                "    arr = tf.TensorArray(dtype=tf.float32, size=3)\n"
                "    arr = arr.write(0, tf.constant(0.0))\n"
                "    arr = arr.write(1, tf.constant(1.0))\n"
                "    arr = arr.write(2, tf.constant(2.0))\n"
                "    return arr.read(0), arr.read(1), arr.read(2)", _make_tensor_array),
)}


def _format(value: Any) -> str:
    import numpy as np

    if isinstance(value, (tuple, list)):
        return ", ".join(_format(v) for v in value)
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value.tolist() if isinstance(value, np.ndarray) else value)


def run_tracing(function: str, args: Sequence[TraceArg] = (), calls: int = 3,
                input_signature: str | None = None,
                reduce_retracing: bool = False) -> TracingResult:
    """Call the lab function once per argument (or ``calls`` times if it takes none).

    Args:
        input_signature: a dtype (``"int32"``, ``"float32"`` ...) to fix the function to
            one scalar-or-vector tensor input of that dtype; None for no signature.

    Raises:
        TimingError: unknown function or argument, or too many calls.
    """
    import tensorflow as tf

    if function not in FUNCTIONS:
        raise TimingError(key="timing.error.lab_function",
                          params={"name": function, "choices": Names(FUNCTIONS)})
    lab = FUNCTIONS[function]
    for arg in args:
        arg.check()
    count = len(args) if lab.takes_argument else int(calls)
    if not 1 <= count <= 40:
        raise TimingError(key="timing.error.lab_calls", params={"count": count})
    if input_signature and input_signature not in ARG_DTYPES:
        raise TimingError(key="timing.error.arg_dtype",
                          params={"dtype": input_signature, "choices": Names(ARG_DTYPES)})
    handle, path = tempfile.mkstemp(prefix="tflab-tfprint-", suffix=".txt")
    os.close(handle)
    log: list[str] = []
    options: dict = {"reduce_retracing": bool(reduce_retracing)}
    if input_signature and lab.takes_argument:
        options["input_signature"] = [tf.TensorSpec(shape=None, dtype=input_signature)]
    fn = tf.function(lab.make(log, f"file://{path}"), **options)
    records = []
    try:
        for index in range(count):
            before_log, before_count = len(log), fn.experimental_get_tracing_count()
            offset = os.path.getsize(path)
            result, error = None, None
            arg = args[index] if lab.takes_argument else None
            try:
                value = fn(arg.make()) if arg is not None else fn()
                result = _format(value)
            except Exception as exc:  # noqa: BLE001 - the lab shows what TensorFlow said
                error = short_error(exc)
            with open(path, encoding="utf-8") as handle_in:
                handle_in.seek(offset)
                printed = tuple(line for line in handle_in.read().splitlines() if line)
            after = fn.experimental_get_tracing_count()
            records.append(CallRecord(index + 1, arg.label if arg else f"{lab.name}()",
                                      after > before_count, after,
                                      tuple(log[before_log:]), printed, result, error))
        concrete = _concrete_signatures(fn)
    finally:
        os.unlink(path)
    return TracingResult(function, lab.source, input_signature if lab.takes_argument else None,
                         bool(reduce_retracing), tuple(records),
                         fn.experimental_get_tracing_count(), concrete)


def _concrete_signatures(fn: Any) -> tuple[str, ...]:
    """One text block per concrete function (its input parameters)."""
    try:
        text = fn.pretty_printed_concrete_signatures()
    except Exception:  # noqa: BLE001 - no concrete function yet
        return ()
    blocks = [block.strip() for block in text.split("\n\n") if block.strip()]
    return tuple(block.split("Output Type:")[0].replace("Input Parameters:", "").strip()
                 for block in blocks)


G2_TEXT = "tf.int32:1 tf.int32:2 np.int32:2 tf.float32:0.1 tf.float32:0.2 1 2 1 0.1 0.2 0.1"


def parse_sequence(text: str) -> list[TraceArg]:
    """Arguments from a line of tokens separated by spaces.

    ``tf.int32:1`` a tensor, ``np.int32:2`` a NumPy array, ``1`` or ``0.1`` a Python
    number; ``*n`` after a value makes a vector of n copies (``tf.float32:1*3``).

    Raises:
        TimingError: naming the first token that cannot be read.
    """
    args = []
    for token in text.replace(",", " ").split():
        try:
            head, _, rest = token.rpartition(":")
            value_text, _, size_text = rest.partition("*")
            size = int(size_text) if size_text else 0
            if head:
                prefix, _, dtype = head.partition(".")
                kind = {"tf": "tensor", "np": "numpy"}[prefix]
            else:
                kind = "python"
                dtype = "float32" if any(c in value_text for c in ".eE") else "int32"
            value = float(value_text)
        except (KeyError, ValueError):
            raise TimingError(key="timing.error.arg_token", params={"token": token}) from None
        arg = TraceArg(kind, value, dtype, size)
        arg.check()
        args.append(arg)
    if not args:
        raise TimingError(key="timing.error.arg_token", params={"token": ""})
    return args
