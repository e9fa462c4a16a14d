"""AutoGraph viewer (scenario G4): curated functions, their converted source, both results.

A person picks a function with Python control flow over tensors (if/else, while, for,
TensorArray), sets its input, and sees ``tf.autograph.to_code`` of it and its result
run eagerly and as a graph. Free-form code is refused unless the server was started
with ``TFLAB_TRUSTED_CODE=1`` (it runs arbitrary Python in the server process).
"""

from __future__ import annotations

import inspect
import linecache
import textwrap
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from tfcore import settings
from tfcore.errors import TimingError
from tfcore.messages import Names, Text

TRUSTED_ENV = settings.TRUSTED_CODE.name


def square_if_positive(x):
    if x > 0:
        x = x * x
    else:
        x = 0
    return x


def collatz_steps(x):
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return steps


def sum_of_squares(x):
    import tensorflow as tf

    total = tf.constant(0, dtype=x.dtype)
    for i in tf.range(x):
        total += i * i
    return total


def squares_array(x):
    import tensorflow as tf

    arr = tf.TensorArray(dtype=tf.int32, size=0, dynamic_size=True)
    for i in tf.range(x):
        arr = arr.write(i, i * i)
    return arr.stack()


@dataclass(frozen=True)
class AutoGraphExample:
    """A curated function: what it shows and the input it takes."""

    name: str
    title: Mapping[str, str]
    fn: Callable
    default: int
    low: int
    high: int


EXAMPLES: dict[str, AutoGraphExample] = {e.name: e for e in (
    AutoGraphExample("square_if_positive", Text("timing.autograph.square_if_positive"),
                     square_if_positive, 1, -100, 100),
    AutoGraphExample("collatz_steps", Text("timing.autograph.collatz_steps"), collatz_steps,
                     27, 1, 10_000),
    AutoGraphExample("sum_of_squares", Text("timing.autograph.sum_of_squares"),
                     sum_of_squares, 5, 0, 1000),
    AutoGraphExample("squares_array", Text("timing.autograph.squares_array"), squares_array,
                     5, 0, 100),
)}


@dataclass(frozen=True)
class AutoGraphResult:
    """Original source, converted source and both results of one example."""

    name: str
    source: str
    converted: str
    value: int
    eager_result: str
    graph_result: str
    graph_ops: tuple[str, ...]


def trusted_code_enabled() -> bool:
    """Whether free-form code is allowed (server started with TFLAB_TRUSTED_CODE=1)."""
    return settings.trusted_code()


def _format(value: Any) -> str:
    if hasattr(value, "numpy"):
        value = value.numpy()
    return str(value.tolist() if hasattr(value, "tolist") else value)


def convert(fn: Callable, name: str, value: int) -> AutoGraphResult:
    """Converted source of ``fn`` and its result eagerly and as a graph on ``value``."""
    import tensorflow as tf

    try:
        source = textwrap.dedent(inspect.getsource(fn))
        converted = tf.autograph.to_code(fn)
        x = tf.constant(int(value))
        eager = _format(fn(x))
        graph_fn = tf.function(fn)
        graph = _format(graph_fn(x))
        ops = sorted({op.type for op in graph_fn.get_concrete_function(x).graph.get_operations()
                      if op.type in ("If", "StatelessIf", "While", "StatelessWhile",
                                     "TensorListReserve", "TensorListSetItem",
                                     "TensorListStack", "TensorListFromTensor")})
    except TimingError:
        raise
    except Exception as exc:  # noqa: BLE001 - shown to the person, with the name
        raise TimingError(key="timing.error.autograph",
                          params={"name": name, "message": str(exc)[:300]}) from exc
    return AutoGraphResult(name, source, converted, int(value), eager, graph, tuple(ops))


def run_example(name: str, value: int | None = None) -> AutoGraphResult:
    """Convert and run a curated example.

    Raises:
        TimingError: unknown example or input out of range.
    """
    if name not in EXAMPLES:
        raise TimingError(key="timing.error.autograph_example",
                          params={"name": name, "choices": Names(EXAMPLES)})
    example = EXAMPLES[name]
    value = example.default if value is None else int(value)
    if not example.low <= value <= example.high:
        raise TimingError(key="timing.error.autograph_input",
                          params={"name": name, "low": example.low, "high": example.high,
                                  "value": value})
    return convert(example.fn, name, value)


def run_custom(source: str, value: int) -> AutoGraphResult:
    """Convert and run the first function defined in ``source`` (trusted servers only).

    Raises:
        TimingError: free-form code is off, or the source defines no function.
    """
    if not trusted_code_enabled():
        raise TimingError(key="timing.error.untrusted",
                          params={"env": TRUSTED_ENV})
    import tensorflow as tf

    filename = f"<tflab-custom-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"tf": tf}
    try:
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - trusted servers only
    except Exception as exc:  # noqa: BLE001
        raise TimingError(key="timing.error.autograph",
                          params={"name": "custom", "message": str(exc)[:300]}) from exc
    functions = [v for v in namespace.values()
                 if inspect.isfunction(v) and v.__code__.co_filename == filename]
    if not functions:
        raise TimingError(key="timing.error.no_function")
    return convert(functions[0], functions[0].__name__, value)
