"""The last layer's output and the loss: ok, the matching loss (with a note), or a refusal
that names the layer and the activation that fixes it (issue 23, item 5)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tfcore.errors import RunError
from tfcore.model import from_dict, get_preset
from tfcore.training.loss_choice import (
    REFUSE,
    SWITCH,
    LastLayer,
    choose,
    choose_for_spec,
    last_layer,
    settle_loss,
)

SCCE, LOGITS = "sparse_categorical_crossentropy", "sparse_categorical_crossentropy_logits"


def _lesson_net() -> object:
    """The lesson's MLP: 784 -> 100 relu -> 10 with a linear output (no softmax)."""
    spec = get_preset("mlp")
    return replace(spec, name="lesson_net", layers=spec.layers[:-1])


@pytest.mark.parametrize("activation, units, loss, verdict, used", [
    (None, 10, SCCE, SWITCH, LOGITS),                 # logits with a probability loss
    ("linear", 10, None, SWITCH, LOGITS),             # the default loss, a linear output
    ("softmax", 10, LOGITS, SWITCH, SCCE),            # softmax with a logits loss
    ("softmax", 10, SCCE, "ok", SCCE),
    (None, 10, LOGITS, "ok", LOGITS),
    ("softmax", 10, "binary_crossentropy", SWITCH, SCCE),   # N units, a binary loss
    (None, 10, "binary_crossentropy", SWITCH, LOGITS),
    ("sigmoid", 1, "binary_crossentropy", "ok", "binary_crossentropy"),
    ("sigmoid", 10, SCCE, REFUSE, SCCE),              # sigmoid with a multi-class loss
    ("softmax", 1, "binary_crossentropy", REFUSE, "binary_crossentropy"),  # always 1.0
    (None, 1, "binary_crossentropy", REFUSE, "binary_crossentropy"),  # no binary logits loss
    (None, 10, "categorical_crossentropy", SWITCH, LOGITS),
    ("relu", 10, SCCE, "ok", SCCE),                   # no opinion on other activations
    (None, 1, "mse", "ok", "mse"),                    # regression: no opinion
    (None, 10, "my_custom_loss", "ok", "my_custom_loss"),
])
def test_the_rule_across_outputs_and_losses(activation, units, loss, verdict, used):
    choice = choose(LastLayer("out", activation, units), loss)
    assert (choice.verdict, choice.loss) == (verdict, used)


@pytest.mark.parametrize("activation, classes, verdict, used", [
    ("sigmoid", 2, SWITCH, "binary_crossentropy"),    # one unit, a multi-class loss
    ("sigmoid", 10, "ok", SCCE),                      # too few units: the fit check's
    ("sigmoid", None, "ok", SCCE),                    # classes unknown: no switch
    (None, 2, REFUSE, SCCE),                          # one raw score: no binary logits loss
    ("softmax", 2, REFUSE, SCCE),
])
def test_one_unit_with_a_multi_class_loss_depends_on_the_classes(activation, classes,
                                                                  verdict, used):
    choice = choose(LastLayer("out", activation, 1), SCCE, classes)
    assert (choice.verdict, choice.loss) == (verdict, used)


def test_a_refusal_names_the_layer_and_the_activation_that_fixes_it():
    choice = choose(LastLayer("out", "sigmoid", 10), SCCE)
    assert choice.fix == "softmax" and choice.params["layer"] == "out"
    assert choice.key == "train.output_refused"
    assert "'out'" in choice.message() and "'softmax'" in choice.message()
    assert choose(LastLayer("out", None, 1), "binary_crossentropy").fix == "sigmoid"


def test_a_switched_family_brings_its_accuracy():
    assert choose(LastLayer("out", "sigmoid", 1), SCCE, 2).metrics == ("binary_accuracy",)
    assert choose(LastLayer("out", None, 10), SCCE).metrics is None


def test_unknown_last_layers_have_no_opinion():
    assert choose(None, SCCE).verdict == "ok"
    assert choose(LastLayer("out", None, None), SCCE).verdict == "ok"


def test_the_last_layer_of_sequential_and_functional_specs():
    lesson = _lesson_net()
    assert last_layer(lesson, 10) == LastLayer("logits", None, 10)
    assert last_layer(get_preset("mlp"), 10) == LastLayer("softmax", "softmax", 10)
    assert last_layer(get_preset("mlp_functional"), 10).activation == "softmax"
    with_dropout = replace(lesson, layers=(*lesson.layers, from_dict({
        "name": "x", "kind": "sequential", "inputs": [{"name": "i", "shape": [4]}],
        "layers": [{"name": "drop", "type": "Dropout", "config": {"rate": 0.2}}]}).layers[0]))
    assert last_layer(with_dropout, 10).name == "logits"      # Dropout passes values on
    linear_act = from_dict({"name": "a", "kind": "sequential",
                            "inputs": [{"name": "i", "shape": [4]}],
                            "layers": [{"name": "d", "type": "Dense",
                                        "config": {"units": 3, "activation": "softmax"}},
                                       {"name": "act", "type": "Activation",
                                        "config": {"activation": "linear"}}]})
    assert last_layer(linear_act, 3) == LastLayer("d", "softmax", 3)


def test_the_lesson_net_with_the_default_loss_gets_the_logits_loss_and_a_note():
    choice = choose_for_spec(_lesson_net(), SCCE)
    assert (choice.verdict, choice.loss) == (SWITCH, LOGITS)
    assert choice.key == "train.output_switched.logits"
    assert choice.message() == (
        "The last layer 'logits' outputs raw scores (no softmax), so the loss is computed "
        f"from logits: {LOGITS} (instead of {SCCE}).")


def test_settling_a_request_records_the_loss_used_and_why():
    request = {"spec": _lesson_net().to_dict(),
               "training": {"loss": SCCE, "metrics": ["sparse_categorical_accuracy"]}}
    body, choice = settle_loss(request)
    assert body["training"]["loss"] == LOGITS and request["training"]["loss"] == SCCE
    assert body["loss_choice"] == {"asked": SCCE, "used": LOGITS, "automatic": True,
                                   "note": choice.message()}
    refused = {"spec": {**_lesson_net().to_dict(), "layers": [
        *_lesson_net().to_dict()["layers"][:-1],
        {"name": "out", "type": "Dense", "config": {"units": 10, "activation": "sigmoid"}}]},
        "training": {"loss": SCCE}}
    with pytest.raises(RunError) as err:
        settle_loss(refused)
    assert err.value.key == "train.err.output_loss" and err.value.params["fix"] == "softmax"


def test_a_binary_switch_asks_the_dataset_only_when_it_matters():
    one_sigmoid = get_preset("mlp").to_dict()
    one_sigmoid["layers"] = [*one_sigmoid["layers"][:-2], {
        "name": "out", "type": "Dense", "config": {"units": 1, "activation": "sigmoid"}}]
    asked: list[int] = []

    def classes(n: int):
        return lambda: asked.append(n) or n

    spec = from_dict(one_sigmoid)
    assert choose_for_spec(spec, SCCE, classes(2)).loss == "binary_crossentropy"
    assert choose_for_spec(spec, SCCE, classes(10)).verdict == "ok"
    assert choose_for_spec(_lesson_net(), SCCE, classes(7)).loss == LOGITS
    assert asked == [2, 10]                           # not for a 10-unit output
    request = {"spec": one_sigmoid, "dataset": {"name": "circles"},
               "training": {"loss": SCCE, "metrics": ["sparse_categorical_accuracy"]}}
    body, _ = settle_loss(request)                    # circles: two classes
    assert body["training"]["loss"] == "binary_crossentropy"
    assert body["training"]["metrics"] == ["binary_accuracy"]
