"""One widget per catalog parameter kind; each returns the new spec value.

Values a person types that do not parse are returned as typed, so validation reports them
located (``dense.units: ... Received: 'abc'``) instead of the widget silently refusing.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import streamlit as st

from tfcore.model import (
    BOOL,
    CHOICE,
    FLOAT,
    INIT,
    INT,
    JSON,
    RAW_KEY,
    REG,
    REGULARIZERS,
    SHAPE,
    SIZE,
    TEXT,
    LayerSpec,
    ParamSpec,
    get_type,
    initializer_names,
)
from ui.common import pick, t


def labels(mapping: dict) -> Callable[[Any], str]:
    """A format_func from labels computed now, in the reader's language (AppTest calls
    format functions outside the script run, where the session language is unknown)."""
    return lambda value: mapping.get(value, str(value))


def _label(param: ParamSpec) -> str:
    return t("builder.param", name=param.name)


def _int(param: ParamSpec, value: Any, key: str) -> Any:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        value = param.default if isinstance(param.default, int) else 0
    return int(st.number_input(_label(param), value=int(value), step=1, key=key,
                               help=pick(param.help)))


def _float(param: ParamSpec, value: Any, key: str) -> Any:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        value = param.default or 0.0
    return float(st.number_input(_label(param), value=float(value), step=0.01, format="%g",
                                 key=key, help=pick(param.help)))


def _bool(param: ParamSpec, value: Any, key: str) -> Any:
    return st.checkbox(_label(param), value=bool(value), key=key, help=pick(param.help))


QUICK_OVER = 8    # a choice with more options than this gets one-click chips ...
QUICK_COUNT = 5   # ... for its first options (the catalog lists the common ones first)


def _take_chip(chips: str, key: str) -> None:
    """A chip was clicked: it sets the list's value. A deselect of the highlighted chip
    (None) keeps the value, and the next run highlights that chip again."""
    picked = st.session_state[chips]
    if picked is not None:
        st.session_state[key] = picked


def _quick_chips(param: ParamSpec, quick: list, key: str, current: Any,
                 format_func: Callable[[Any], str]) -> None:
    """One-click chips for the common options above the full list (no typing to filter
    it); the chip of the current value is highlighted, none when another is chosen."""
    chips = f"{key}.quick"
    shown = current if current in quick else None
    if chips not in st.session_state or st.session_state[chips] != shown:
        st.session_state[chips] = shown   # seeded, so the widget takes no default
    st.pills(t("builder.common_choices", name=param.name), quick, selection_mode="single",
             key=chips, format_func=format_func, on_change=_take_chip, args=(chips, key),
             help=t("builder.common_choices_help", name=param.name))


def _choice(param: ParamSpec, value: Any, key: str) -> Any:
    options = list(param.choices) + ([None] if param.nullable else [])
    format_func = labels({v: t("builder.none") if v is None else str(v) for v in options})
    index = options.index(value) if value in options else 0
    if len(param.choices) > QUICK_OVER:
        current = st.session_state[key] if key in st.session_state else options[index]
        _quick_chips(param, list(param.choices[:QUICK_COUNT]), key, current, format_func)
    if key in st.session_state:
        index = 0   # the widget's state holds its value: a default too would be warned about
    return st.selectbox(_label(param), options, index=index, key=key, help=pick(param.help),
                        format_func=format_func)


def _ints_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def parse_ints(text: str, single: bool) -> Any:
    """``"5, 5"`` -> ``[5, 5]``; ``"3"`` -> ``3`` (or ``[3]`` for a shape); ``""`` -> None;
    text that does not parse is returned unchanged (validation reports it)."""
    text = text.strip().strip("()[]")
    if not text:
        return None
    try:
        items = [int(part) for part in text.replace(" ", ",").split(",") if part]
    except ValueError:
        return text
    return items[0] if single and len(items) == 1 else items


def _size(param: ParamSpec, value: Any, key: str) -> Any:
    text = st.text_input(_label(param), value=_ints_text(value), key=key,
                         help=pick(param.help))
    return parse_ints(text, single=True)


def _shape(param: ParamSpec, value: Any, key: str) -> Any:
    text = st.text_input(_label(param), value=_ints_text(value), key=key,
                         help=pick(param.help))
    return parse_ints(text, single=False)


def _text(param: ParamSpec, value: Any, key: str) -> Any:
    if value is None and param.nullable:
        value = ""
    text = st.text_input(_label(param), value=str(value), key=key, help=pick(param.help))
    return None if param.nullable and not text else text


def json_box(label: str, value: Any, key: str, help: str = "") -> Any:
    """A JSON text box; text that is not JSON is shown as an error and the value is kept."""
    shown = json.dumps(value, ensure_ascii=False)
    text = st.text_area(label, value=shown, key=key, help=help or None,
                        height=68 if len(shown) < 120 else 160)
    try:
        return json.loads(text) if text.strip() else None
    except ValueError as exc:
        st.error(t("builder.bad_json_field", msg=str(exc)), icon=":material/error:")
        return value


def _json(param: ParamSpec, value: Any, key: str) -> Any:
    return json_box(_label(param), value, key, pick(param.help))


def _init(param: ParamSpec, value: Any, key: str) -> Any:
    if isinstance(value, dict) and "class_name" in value:   # a Keras config: edit as JSON
        return json_box(_label(param), value, key, pick(param.help))
    names = initializer_names()
    current = value.get("name") if isinstance(value, dict) else value
    index = names.index(current) if current in names else 0
    chosen = st.selectbox(_label(param), names, index=index, key=key, help=pick(param.help))
    if isinstance(value, dict) and chosen == current:
        return value  # keep the parameters set in JSON (for example stddev=0.01)
    return chosen


def _reg(param: ParamSpec, value: Any, key: str) -> Any:
    if isinstance(value, dict) and "class_name" in value:   # a Keras config: edit as JSON
        return json_box(_label(param), value, key, pick(param.help))
    options = ["none", *REGULARIZERS]
    current = value.get("name") if isinstance(value, dict) else "none"
    left, right = st.columns(2)
    with left:
        chosen = st.selectbox(_label(param), options, index=options.index(current), key=key,
                              help=pick(param.help),
                              format_func=labels({v: t("builder.none") if v == "none" else v
                                                  for v in options}))
    if chosen == "none":
        return None
    factor = value.get("factor", 0.01) if isinstance(value, dict) else 0.01
    with right:
        factor = st.number_input(t("builder.factor"), value=float(factor), step=0.001,
                                 format="%g", key=f"{key}.factor")
    return {"name": chosen, "factor": float(factor)}


FIELD_WIDGETS: dict[str, Callable[[ParamSpec, Any, str], Any]] = {
    INT: _int, FLOAT: _float, BOOL: _bool, CHOICE: _choice, SIZE: _size, SHAPE: _shape,
    INIT: _init, REG: _reg, TEXT: _text, JSON: _json,
}


def param_widget(param: ParamSpec, value: Any, key: str) -> Any:
    """Render the widget of one parameter; return its value for the spec."""
    return FIELD_WIDGETS[param.kind](param, value, key)


def config_form(entry: LayerSpec, key: Callable[..., str]) -> dict[str, Any]:
    """The fields of a layer: its main parameters, then (behind a toggle) the other Keras
    options and the raw Keras config an import kept. Defaults are left out of the spec."""
    kind = get_type(entry.type)
    if kind is None:
        return dict(entry.config)
    config = dict(entry.config)
    main = [p for p in kind.params if not p.advanced]
    more = [p for p in kind.params if p.advanced]
    changed = [p.name for p in more if p.name in config]
    show_more = bool(more or RAW_KEY in config) and st.toggle(
        t("builder.more_options", count=len(more)), key=key("more"),
        value=bool(changed) or RAW_KEY in config, help=t("builder.more_options_help"))
    for param in main + (more if show_more else []):
        value = param_widget(param, config.get(param.name, param.default), key(param.name))
        if value == param.default and not param.required:
            config.pop(param.name, None)
        else:
            config[param.name] = value
    if show_more and RAW_KEY in config:
        raw = json_box(t("builder.raw_config"), config[RAW_KEY], key(RAW_KEY),
                       t("builder.raw_config_help"))
        if raw in (None, {}):
            config.pop(RAW_KEY, None)
        else:
            config[RAW_KEY] = raw
    return config
