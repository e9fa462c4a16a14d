"""The canvas component and its protocol.

Built assets live in ``frontend/dist`` (committed; no npm and nothing fetched at run time;
``make canvas`` rebuilds them from ``frontend/src``). ``frontend/src/protocol.json`` is the
one description of what crosses the iframe: the arguments Python sends, the value the
frontend returns and each event's fields. Both sides read it: Python checks the arguments
it sends (a mismatch is a bug: ``ValueError``) and each event it receives (a mismatch is
refused as ``canvas.bad_event``); the frontend sends only the events it declares.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

import streamlit.components.v1 as components

from tfcore.errors import SpecError

FRONTEND = Path(__file__).resolve().parent / "frontend"
DIST = FRONTEND / "dist"
PROTOCOL: Mapping[str, Any] = json.loads(
    (FRONTEND / "src" / "protocol.json").read_text(encoding="utf-8"))
KEY = "canvas.events"
EVENT_FIELDS = {"op": {"type": "string", "required": True},
                "seq": {"type": "integer", "required": True}}
"""What every event carries besides its own fields."""

_component = components.declare_component("tflab_model_canvas", path=str(DIST))

_KINDS: Mapping[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def _field(spec: Any) -> Mapping[str, Any]:
    """A field of the protocol; ``items`` may name a bare type."""
    return spec if isinstance(spec, Mapping) else {"type": spec}


def _value_problems(value: Any, field: Mapping[str, Any], where: str) -> list[str]:
    kinds = field["type"] if isinstance(field["type"], list) else [field["type"]]
    if not any(_KINDS[kind](value) for kind in kinds):
        return [f"{where}: {str(value)[:60]!r} is not {' or '.join(kinds)}"]
    out: list[str] = []
    if isinstance(value, list) and "items" in field:
        for n, item in enumerate(value):
            out += _value_problems(item, _field(field["items"]), f"{where}[{n}]")
    if isinstance(value, dict) and "fields" in field:
        out += problems(value, field["fields"], where)
    return out


def problems(data: Mapping[str, Any], fields: Mapping[str, Any], where: str) -> list[str]:
    """Each way ``data`` breaks ``fields`` (a protocol section): a missing required field,
    a field the protocol does not name, a value of another type (items and fields too)."""
    out = [f"{where}.{name}: not in protocol.json" for name in data if name not in fields]
    for name, spec in fields.items():
        if name in data:
            out += _value_problems(data[name], _field(spec), f"{where}.{name}")
        elif _field(spec).get("required"):
            out.append(f"{where}.{name}: missing")
    return out


def event_problems(event: Any) -> list[str]:
    """How one event from the frontend breaks the protocol (``[]``: it fits)."""
    if not isinstance(event, dict):
        return [f"event: {str(event)[:60]!r} is not an object"]
    op = event.get("op")
    fields = PROTOCOL["events"].get(op) if isinstance(op, str) else None
    if fields is None:
        return [f"event.op: {str(op)[:60]!r} is not an event of protocol.json"]
    return problems(event, {**EVENT_FIELDS, **fields}, op)


def check_event(event: Any) -> None:
    """Raises: SpecError (``canvas.bad_event``): the event does not fit the protocol."""
    found = event_problems(event)
    if found:
        raise SpecError(f"Not a canvas event: {'; '.join(found)[:200]}", key="canvas.bad_event",
                        params={"event": "; ".join(found)[:200]})


def component_events(value: Any) -> tuple[str, list]:
    """The token and events of the component's value; ``("", [])`` when it does not fit."""
    if not isinstance(value, dict) or problems(value, PROTOCOL["value"], "value"):
        return "", []
    return value["token"], value["events"]


def model_canvas(**args: Any) -> Any:
    """Draw the canvas with ``args`` (``protocol.json``'s ``args``); return its last value.

    Raises:
        ValueError: an argument the protocol does not name, a missing or mistyped one.
    """
    found = problems(args, PROTOCOL["args"], "args")
    if found:
        raise ValueError("The canvas arguments break protocol.json: " + "; ".join(found[:5]))
    return _component(key=KEY, default=None, **args)


def label_names() -> tuple[str, ...]:
    """The canvas's own labels (``args.labels``), each a ``canvas.<name>`` catalog key."""
    return tuple(PROTOCOL["args"]["labels"]["fields"])
