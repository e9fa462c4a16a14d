"""The training registries (``tfcore.training.registry``) are the one description of each
choice: the config, the CLI, the URL state and the code view are derived from them, and a
refusal carries its range as structured parameters that both catalogs render."""

from __future__ import annotations

import argparse
import re

import pytest

from tfcore.cli import build_parser
from tfcore.errors import DeviceError, RunError
from tfcore.training import (
    DEVICE_KINDS,
    LOOP_KINDS,
    OPTIMIZERS,
    SCHEDULES,
    SETTINGS,
    DeviceConfig,
    TrainConfig,
    tape_loop_code,
)
from tfcore.training.registry import REFUSALS
from ui.common.i18n import catalog

EN, ZH = catalog("en"), catalog("zh")


def _train_actions() -> dict[str, argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a for a in sub.choices["train"]._actions
            if a.help != argparse.SUPPRESS}             # not the hidden old spellings


def _refusals(monkeypatch) -> list[Exception]:
    """One refusal of every kind the registries raise."""
    from tfcore.training import config as config_module

    monkeypatch.setattr(config_module, "_custom_names", lambda: (["my_loss"], []))
    out = []
    for config in ({"epochs": 0}, {"learning_rate": 0.0}, {"steps_per_second": 0},
                   {"optimizer": "nope"}, {"ckpt_prefix": "a/b"},
                   {"loss": "my_loss", "loop": "custom"}):
        with pytest.raises(RunError) as info:
            TrainConfig.from_dict(config)
        out.append(info.value)
    for device in ({"kind": "tpu"}, {"logical_devices": 17}, {"memory_limit_mb": -1}):
        with pytest.raises(DeviceError) as info:
            DeviceConfig.from_dict(device)
        out.append(info.value)
    return out


def test_every_label_key_is_in_both_catalogs() -> None:
    for registry in (OPTIMIZERS, SCHEDULES, LOOP_KINDS, DEVICE_KINDS):
        for entry in registry.values():
            if registry is OPTIMIZERS and entry.label is None:      # shown by its class name
                continue
            assert entry.label in EN and entry.label in ZH, entry
    assert all(entry.label for registry in (SCHEDULES, LOOP_KINDS, DEVICE_KINDS)
               for entry in registry.values())


def test_every_refusal_renders_in_both_languages_from_its_params(monkeypatch) -> None:
    """The English catalog says what the engine says; the Chinese text has no English
    phrase in it: only the setting's name, the value and the choices are Latin."""
    errors = [e for e in _refusals(monkeypatch) if e.key in REFUSALS]
    assert {e.key for e in errors} == set(REFUSALS)
    for exc in errors:
        assert EN[exc.key].format(**exc.params) == exc.message
        assert not any(isinstance(v, str) and " " in v.strip("'") for v in exc.params.values()
                       if v != exc.params.get("value")), exc.params   # no phrase as a param
        chinese = re.sub(r"\{[^{}]*\}", "", ZH[exc.key])
        words = set(re.findall(r"[A-Za-z_]{2,}", chinese)) - {"null", "ckpt_prefix", "ckpt",
                                                              "model"}
        assert not words, (exc.key, words)
        assert ZH[exc.key].format(**exc.params)
    bounds = next(e for e in errors if e.params.get("name") == "epochs").params
    assert bounds["low"] == SETTINGS["epochs"].low and bounds["high"] == SETTINGS["epochs"].high
    device = next(e for e in errors if e.params.get("name") == "kind").params
    assert device["choices"] == sorted(DEVICE_KINDS)


def test_config_defaults_are_the_registry_defaults() -> None:
    config = TrainConfig()
    for name, setting in SETTINGS.items():
        if hasattr(config, name):
            assert getattr(config, name) == setting.default, name
            assert setting.accepts(setting.default) and setting.accepts(setting.high)
            assert not setting.accepts(setting.high * 2 + 1), name
    assert config.optimizer in OPTIMIZERS and config.schedule in SCHEDULES
    assert config.loop in LOOP_KINDS


def test_cli_choices_defaults_and_help_come_from_the_registries() -> None:
    actions = _train_actions()
    assert actions["optimizer"].choices == list(OPTIMIZERS)
    assert actions["schedule"].choices == list(SCHEDULES)
    assert actions["loop"].choices == list(LOOP_KINDS)
    flags = {"epochs": "epochs", "batch_size": "batch_size", "lr": "learning_rate",
             "momentum": "momentum", "seed": "seed", "keep": "keep", "steps": "steps",
             "ckpt_every": "ckpt_every", "validate_every": "validate_every",
             "steps_per_second": "steps_per_second", "insight_every": "insight_every"}
    for dest, name in flags.items():
        setting = SETTINGS[name]
        assert actions[dest].default == setting.default, dest
        assert actions[dest].type is setting.kind, dest
        assert setting.describe() in actions[dest].help, dest


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_every_optimizer_is_made_as_its_code_says(name: str) -> None:
    """``make`` and ``code`` read the same entry: the class and every keyword agree."""
    import keras

    config = TrainConfig(optimizer=name, momentum=0.5 if "momentum" in
                         OPTIMIZERS[name].options else 0.0, learning_rate=0.02)
    entry = OPTIMIZERS[name]
    optimizer = entry.make(keras, 0.02, config)
    assert type(optimizer) is getattr(keras.optimizers, entry.keras_class)
    assert float(optimizer.learning_rate.numpy()) == pytest.approx(0.02)
    code = tape_loop_code(config.to_dict() | {"loop": "custom"})
    line = next(line for line in code.splitlines() if line.startswith("optimizer = "))
    assert line == f"optimizer = {entry.code('0.02', config)}"
    made = eval(line.removeprefix("optimizer = "), {"keras": keras})   # the text runs
    assert type(made) is type(optimizer)
    for key, value in entry.kwargs(config).items():
        assert getattr(made, key) == pytest.approx(value) == getattr(optimizer, key)


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_every_schedule_is_made_as_its_code_says(name: str) -> None:
    import keras

    entry = SCHEDULES[name]
    made = entry.make(keras, 0.1, 100, 10)
    text = eval(entry.code(0.1), {"keras": keras, "steps_per_epoch": 10, "total_steps": 100})
    assert type(text) is type(made)
    if entry.keras_class:
        assert float(text(50)) == pytest.approx(float(made(50)))
