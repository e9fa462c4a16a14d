"""The builder with the whole Keras catalog: the add-layer picker by family, the generated
"more Keras options", raw config, and a large imported model paged and drawn compactly."""

from __future__ import annotations

from tests.app.apptest_helpers import assert_clean, open_page
from tfcore.model.spec import FUNCTIONAL, InputSpec, LayerSpec, ModelSpec
from ui.common.i18n import catalog


def _total(at) -> str:
    label = catalog("en")["builder.total"]
    return next(m.value for m in at.metric if m.label == label)


def test_the_picker_groups_every_keras_layer_by_family() -> None:
    at = open_page("app_pages/builder.py", "en")
    everything = at.selectbox(key="bld.add_type").options
    assert len(everything) >= 140
    at.selectbox(key="bld.add_family").set_value("attention").run()
    options = at.selectbox(key="bld.add_type").options
    assert len(options) == 4 and all(o.startswith("Attention · ") for o in options)
    at.selectbox(key="bld.add_family").set_value("activation").run()
    at.selectbox(key="bld.add_type").set_value("PReLU")
    at.button(key="bld.add").click().run()
    spec = at.session_state["builder.draft"]
    assert spec.layers[-1].type == "PReLU" and not at.exception
    assert _total(at) == f"{79_510 + 10:,}"          # PReLU learns one alpha per feature
    assert_clean(at, "en")


def test_more_keras_options_and_raw_config_reach_the_spec() -> None:
    at = open_page("app_pages/builder.py", "en")
    toggle = next(t for t in at.toggle if t.key.endswith(".1.more"))
    assert not toggle.value
    toggle.set_value(True).run()
    trainable = next(c for c in at.checkbox if c.key.endswith(".1.trainable"))
    trainable.uncheck().run()
    spec = at.session_state["builder.spec"]
    assert spec.layers[1].config["trainable"] is False
    assert at.metric[2].value == f"{78_500:,}"        # the frozen Dense is non-trainable
    constraint = next(a for a in at.text_area if a.key.endswith(".1.kernel_constraint"))
    constraint.set_value("{not json").run()
    assert any("Not valid JSON" in e.value for e in at.error)
    assert "kernel_constraint" not in at.session_state["builder.draft"].layers[1].config
    assert_clean(at, "en")


def _chain(count: int) -> ModelSpec:
    layers, prev = [], "x"
    for n in range(count):
        layers.append(LayerSpec(f"d{n}", "Dense", {"units": 2}, inputs=(prev,)))
        prev = f"d{n}"
    return ModelSpec("long", FUNCTIONAL, (InputSpec("x", (2,)),), tuple(layers),
                     outputs=(prev,))


def test_a_large_model_is_paged_found_by_name_and_drawn_compactly() -> None:
    at = open_page("app_pages/builder.py", "en")
    at.session_state["builder.draft"] = _chain(120)
    at.session_state["builder.rev"] = 99          # as replace_draft does: fresh widgets
    at.run()
    assert not at.exception
    assert _total(at) == f"{120 * 6:,}"
    assert len(at.expander) == 20
    assert any("120 layers: each node" in c.value for c in at.caption)
    at.text_input(key="bld.layer_filter").set_value("d11").run()
    labels = [e.label for e in at.expander]
    assert labels[0].startswith("12. d11") and len(labels) == 11   # d11, d110 ... d119
    at.number_input(key="bld.layer_page").set_value(1).run()
    assert_clean(at, "en")
