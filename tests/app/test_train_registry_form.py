"""The Train form is drawn from the training registries: its ranges are the engine's
(``SETTINGS``), its choices and labels are the registries' entries, an optimizer shows the
option widgets it takes (``Optimizer.options``), and a link may name any registered choice."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP, assert_clean, open_page
from tfcore.training import LOOP_KINDS, OPTIMIZERS, SCHEDULES, SETTINGS, TrainConfig
from ui.common.i18n import catalog
from ui.training.url import PACES, PARAMS

EN = catalog("en")
# widget key -> the setting it edits
NUMBERS = {"train.epochs": "epochs", "train.batch_size": "batch_size", "train.lr":
           "learning_rate", "train.seed": "seed", "train.ckpt_every": "ckpt_every",
           "train.keep": "keep", "train.validate_every": "validate_every"}


def test_the_form_ranges_and_defaults_are_the_engines() -> None:
    at = open_page("app_pages/train.py", "en")
    assert_clean(at, "en")
    for key, name in NUMBERS.items():
        widget, setting = at.number_input(key=key), SETTINGS[name]
        assert (widget.min, widget.max) == (setting.low, setting.high), key
        assert widget.value == setting.default == getattr(TrainConfig(), name), key
    assert at.number_input(key="train.epochs").max == 1_000_000
    assert at.selectbox(key="train.optimizer").options == [
        EN[o.label] if o.label else o.keras_class for o in OPTIMIZERS.values()]
    assert at.selectbox(key="train.schedule").options == [
        EN[s.label] for s in SCHEDULES.values()]
    assert at.radio(key="train.loop").options == [EN[loop.label] for loop in LOOP_KINDS.values()]
    assert all(SETTINGS["steps_per_second"].accepts(float(p)) for p in PACES if p)
    at.radio(key="train.device").set_value("logical").run()
    assert at.number_input(key="train.logical_count").max == SETTINGS["logical_devices"].high
    at.radio(key="train.device").set_value("cluster").run()
    for key, name in (("train.cluster.workers", "workers"),
                      ("train.cluster.backup_every", "backup_every")):
        widget, setting = at.number_input(key=key), SETTINGS[name]
        assert (widget.min, widget.max, widget.value) == (setting.low, setting.high,
                                                          setting.default), key


def test_each_optimizer_shows_the_options_it_takes() -> None:
    at = open_page("app_pages/train.py", "en")
    for name, optimizer in OPTIMIZERS.items():
        at.selectbox(key="train.optimizer").set_value(name).run()
        shown = {s.key.removeprefix("train.") for s in at.slider if s.key.startswith("train.")}
        takes = {o for entry in OPTIMIZERS.values() for o in entry.options}
        assert shown & takes == set(optimizer.options), name
        for option in optimizer.options:
            slider, setting = at.slider(key=f"train.{option}"), SETTINGS[option]
            assert (slider.min, slider.max, slider.step) == (setting.low, setting.high,
                                                             setting.step)
    assert not at.exception


def test_a_link_takes_every_registered_choice_and_refuses_out_of_range() -> None:
    for name in OPTIMIZERS:
        assert PARAMS["optimizer"].parse(name) == name
    for name in LOOP_KINDS:
        assert PARAMS["loop"].parse(name) == name
    high = SETTINGS["epochs"].high
    assert PARAMS["epochs"].parse(str(high)) == high
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(lang="en", epochs=str(high + 1), momentum="0.5", optimizer="sgd")
    at.run()
    at.switch_page("app_pages/train.py").run()
    assert at.number_input(key="train.epochs").value == SETTINGS["epochs"].default
    assert at.slider(key="train.momentum").value == 0.5
    assert EN["train.url_ignored"].format(names="epochs") in [w.value for w in at.warning]
