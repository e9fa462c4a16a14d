"""Reading dataset options with range checks and messages that echo the bad value."""

from __future__ import annotations

from typing import Any, Mapping

from tfcore.errors import DatasetError
from tfcore.messages import Names, Text


def _bad(name: str, key: str, value: Any, expected: Text) -> DatasetError:
    return DatasetError(
        key="data.err.option", params={"name": name, "option": key,
                                       "value": repr(value), "expected": expected})


def _range(kind: str, low: float, high: float) -> Text:
    """What a number option allows: ``param.allowed.int_low_high`` (or ``float_``)."""
    return Text(f"param.allowed.{kind}_low_high", {"low": low, "high": high})


def int_option(name: str, options: Mapping[str, Any], key: str, default: int,
               low: int, high: int) -> int:
    """An integer option in ``[low, high]`` (``default`` when absent)."""
    value = options.get(key, default)
    if isinstance(value, bool):
        raise _bad(name, key, value, _range("int", low, high))
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise _bad(name, key, value, _range("int", low, high)) from None
    if number != value and not (isinstance(value, str) and value.strip().isdigit()):
        if not (isinstance(value, float) and value.is_integer()):
            raise _bad(name, key, value, _range("int", low, high))
    if not low <= number <= high:
        raise _bad(name, key, value, _range("int", low, high))
    return number


def float_option(name: str, options: Mapping[str, Any], key: str, default: float,
                 low: float, high: float) -> float:
    """A float option in ``[low, high]``."""
    value = options.get(key, default)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _bad(name, key, value, _range("float", low, high)) from None
    if isinstance(value, bool) or not low <= number <= high:
        raise _bad(name, key, value, _range("float", low, high))
    return number


def bool_option(name: str, options: Mapping[str, Any], key: str, default: bool) -> bool:
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise _bad(name, key, value, Text("param.allowed.bool"))
    return value


def str_option(name: str, options: Mapping[str, Any], key: str, default: str | None,
               choices: tuple[str, ...] | None = None) -> str | None:
    value = options.get(key, default)
    if value is None:
        return None
    if not isinstance(value, str) or (choices and value not in choices):
        expected = (Text("param.allowed.choice", {"choices": Names(choices)}) if choices
                    else Text("param.allowed.text"))
        raise _bad(name, key, value, expected)
    return value


def check_known(name: str, options: Mapping[str, Any], known: tuple[str, ...]) -> None:
    """Refuse option names a source does not understand (typos would be silent)."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise DatasetError(
            key="data.err.unknown_option" if known else "data.err.no_options",
            params={"name": name, "option": unknown[0], "known": Names(known)})
