"""The weights page's state and button callbacks.

The built Keras model lives in ``st.session_state["weights.models"]`` keyed by the spec
JSON, so edits persist across reruns. Buttons use ``on_click`` callbacks: the change is
made before the page redraws, so tables and charts show it at once. Each callback
leaves a message (success text or the engine error) for its panel to show.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st

from tfcore.errors import TFLabError
from tfcore.model import INITIALIZERS, ModelSpec
from tfcore.weights import (
    InitChoice,
    add_constant,
    build_for_input,
    export_tensor,
    fill_slice,
    histogram,
    initialize_layer,
    initialize_model,
    initialize_variable,
    load_weights,
    parse_shape,
    rewind,
    safe_file_stem,
    save_weights,
    set_element,
    shown_path,
    spec_with_built_input,
)
from ui.common import plain, t, workspace

MODELS, CURRENT, FLASH, LAST_INIT = ("weights.models", "weights.current", "weights.flash",
                                     "weights.last_init")
SPECS = "weights.specs"
RUN_RECORDS = "weights.run_records"
VAR = "weights.var"
VAR_MODEL = "weights.var_model"  # fingerprint of the variables the selector last showed
KEEP_MODELS = 3
TRAIN_WEIGHTS, TRAIN_SPEC = "train.initial_weights", "train.spec"


def session_model(key: str, spec: ModelSpec, make: Callable[[], Any]) -> Any:
    """The session's model under ``key``, made once by ``make()``; ``spec`` describes it."""
    models: dict = st.session_state.setdefault(MODELS, {})
    if key not in models:
        models[key] = make()
        st.session_state.setdefault(SPECS, {})[key] = spec
        while len(models) > KEEP_MODELS:
            models.pop(next(iter(models)))
    st.session_state[CURRENT] = key
    return models[key]


def spec_model(spec: ModelSpec) -> Any:
    """The model of a spec for this session (built once, weights drawn at seed 0)."""
    from tfcore.model import build_model

    def make() -> Any:
        from tfcore.model import load_initial_weights

        model = build_model(spec)
        if spec.weights:        # an imported model's own weights
            return load_initial_weights(model, spec, workspace())
        if model.weights:
            rewind(model, 0)
        return model
    return session_model(spec.to_json(), spec, make)


def run_model(run_id: str) -> tuple[Any, Any]:
    """The model of a run with its latest weights, and the engine's ``RunModel`` record."""
    from tfcore.weights import model_from_run

    key = f"run:{run_id}"
    records: dict = st.session_state.setdefault(RUN_RECORDS, {})
    if key not in st.session_state.get(MODELS, {}):
        records[key] = model_from_run(workspace().runs / run_id)
    record = records[key]
    return session_model(key, record.spec, lambda: record.model), record


def on_reload_run() -> None:
    """Forget the session's copy of the run's model so it is read again."""
    key = f"run:{_ss('weights.run', '')}"
    st.session_state.get(MODELS, {}).pop(key, None)


def current_model() -> Any:
    return st.session_state[MODELS][st.session_state[CURRENT]]


def current_spec() -> ModelSpec:
    return st.session_state[SPECS][st.session_state[CURRENT]]


def _run(area: str, action: Callable[[], str]) -> None:
    try:
        st.session_state[FLASH] = (area, "success", action())
    except TFLabError as exc:
        st.session_state[FLASH] = (area, "error", exc)


def take_flash(area: str) -> tuple[str, Any] | None:
    """The message a callback left for ``area`` (removed once taken)."""
    found = st.session_state.get(FLASH)
    if found and found[0] == area:
        del st.session_state[FLASH]
        return found[1], found[2]
    return None


def _ss(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def on_build() -> None:
    def act() -> str:
        shape = parse_shape(_ss("weights.build_shape", ""))
        table = build_for_input(current_model(), shape)
        return t("weights.deferred.built", count=len(table.variables),
                 params=table.total_params)
    _run("build", act)


def init_choice() -> InitChoice:
    """The initializer, parameters and seed chosen in the initialize panel."""
    name = _ss("weights.init.name", "glorot_uniform")
    kind = INITIALIZERS[name]
    params = {p.name: float(_ss(f"weights.init.{name}.{p.name}", p.default))
              for p in kind.params}
    return InitChoice(name, params, int(_ss("weights.init.seed", 0)))


def _with_before_after(action: Callable[[Any], Any]) -> Callable[[], str]:
    def act() -> str:
        model = current_model()
        path = _ss(VAR)
        paths = [v.path for v in model.weights]
        path = path if path in paths else (paths[0] if paths else None)
        before = np.array(next(v for v in model.weights if v.path == path).numpy()) \
            if path else None
        report = action(model)
        if path is not None:
            after = np.array(next(v for v in model.weights if v.path == path).numpy())
            st.session_state[LAST_INIT] = {"path": path, "before": histogram(before),
                                           "after": histogram(after), "report": report}
        return t("weights.init.done", count=len(report.changes))
    return act


def on_init() -> None:
    scope = _ss("weights.init.scope", "layer")
    choice = init_choice()
    bias = InitChoice("zeros") if _ss("weights.init.bias_zero", False) else None
    actions = {
        "variable": lambda m: initialize_variable(m, _ss(VAR), choice),
        "layer": lambda m: initialize_layer(m, _ss("weights.init.layer", ""), choice, bias),
        "model": lambda m: initialize_model(m, choice, bias),
    }
    _run("init", _with_before_after(actions[scope]))


def on_rewind() -> None:
    seed = int(_ss("weights.rewind_seed", 0))
    _run("init", _with_before_after(lambda m: rewind(m, seed)))


def _edit_message(report: Any) -> str:
    return t("weights.edit.done", changed=report.changed, path=report.path)


def on_set() -> None:
    _run("edit", lambda: _edit_message(set_element(
        current_model(), _ss(VAR), _ss("weights.edit.index", ""),
        _ss("weights.edit.set_value", 0.0))))


def on_add() -> None:
    _run("edit", lambda: _edit_message(add_constant(
        current_model(), _ss(VAR), _ss("weights.edit.add_value", 0.0))))


def on_fill() -> None:
    _run("edit", lambda: _edit_message(fill_slice(
        current_model(), _ss(VAR), _ss("weights.edit.slice", ""),
        _ss("weights.edit.fill_value", 0.0))))


def _file_name(suffix: str) -> str:
    return f"exports/{safe_file_stem(_ss('weights.file.name', 'weights'))}{suffix}"


def on_save() -> None:
    def act() -> str:
        path = save_weights(current_model(), workspace(), _file_name(".weights.h5"))
        return t("weights.file.saved", path=plain(shown_path(path)))
    _run("file", act)


def on_load() -> None:
    def act() -> str:
        load_weights(current_model(), workspace(), _file_name(".weights.h5"))
        return t("weights.file.loaded", path=plain(_file_name(".weights.h5")))
    _run("file", act)


def on_export() -> None:
    def act() -> str:
        path = export_tensor(current_model(), _ss(VAR), workspace(), _file_name(".npy"))
        return t("weights.file.exported", path=plain(shown_path(path)))
    _run("file", act)


def on_send() -> None:
    def act() -> str:
        relative = _file_name(".weights.h5")
        save_weights(current_model(), workspace(), relative)
        st.session_state[TRAIN_WEIGHTS] = relative
        st.session_state[TRAIN_SPEC] = spec_with_built_input(current_spec(), current_model())
        return t("weights.send.done", path=plain(relative))
    _run("send", act)
