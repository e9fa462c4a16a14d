"""Issue 22, item 3: one fit rule. The Train page (the spec's shapes, no TensorFlow), the
command line and the worker (the built model's shapes) give the same verdict, with the same
structured params, for the same model, dataset and loss."""

from __future__ import annotations

import pytest

from tfcore.data import DatasetRequest, load_dataset
from tfcore.errors import RunError
from tfcore.model import build_model, from_dict, get_preset
from tfcore.training import check_spec_fits, fit_problems, spec_shapes
from tfcore.training.fits import CLASSES, INPUT_SHAPE, check_model_fits, model_shapes
from ui.training.fit import PAGE_KEYS
from ui.training.fit import fit_problems as page_problems

SPARSE = "sparse_categorical_crossentropy"


def _units(preset: str, units: int):
    spec = get_preset(preset).to_dict()
    for layer in spec["layers"]:
        if layer["name"] == "logits":
            layer["config"]["units"] = units
    return from_dict(spec)


CASES = [  # model, dataset, loss -> the problem keys
    (lambda: get_preset("mlp"), "digits28", SPARSE, []),
    (lambda: get_preset("mlp"), "circles", SPARSE, [INPUT_SHAPE]),
    (lambda: _units("mlp", 2), "digits28", SPARSE, [CLASSES]),
    (lambda: _units("mlp", 2), "digits28", None, [CLASSES]),       # the task's default loss
    (lambda: _units("mlp", 2), "digits28", "mse", []),             # not a sparse loss
    (lambda: _units("mlp", 2), "circles", SPARSE, [INPUT_SHAPE]),   # 2 classes: enough
    (lambda: get_preset("cnn"), "circles", SPARSE, [INPUT_SHAPE]),
    (lambda: get_preset("mlp_functional"), "digits8", SPARSE, [INPUT_SHAPE]),
    (lambda: get_preset("house_linear"), "house_prices", "mse", []),
    (lambda: get_preset("house_linear"), "digits8", SPARSE, [INPUT_SHAPE, CLASSES]),
]


@pytest.mark.parametrize("make, dataset, loss, keys", CASES)
def test_page_cli_and_worker_give_the_same_verdict(make, dataset, loss, keys) -> None:
    spec = make()
    info = load_dataset(DatasetRequest(name=dataset)).info
    engine = fit_problems(spec_shapes(spec), info, loss)
    assert [p.key for p in engine] == keys
    # the page: the same problems, worded for the form
    page = page_problems(spec, info, loss)
    assert [(p.key, p.params) for p in page] == [(PAGE_KEYS[p.key], p.params) for p in engine]
    # the worker: the built model's shapes give the same problems and params
    model = build_model(spec)
    assert model_shapes(model) == spec_shapes(spec)
    assert fit_problems(model_shapes(model), info, loss) == engine
    if not keys:
        check_model_fits(model, info, loss)
        check_spec_fits(spec, info, loss)
        return
    for check, arg in ((check_model_fits, model), (check_spec_fits, spec)):
        with pytest.raises(RunError) as caught:
            check(arg, info, loss)
        assert caught.value.key == keys[0] and caught.value.params == engine[0].params


def test_the_params_are_structured_and_name_the_dataset() -> None:
    info = load_dataset(DatasetRequest(name="circles")).info
    [shape] = fit_problems(spec_shapes(get_preset("mlp")), info, SPARSE)
    assert shape.params == {"model": "(28, 28, 1)", "data": "(2,)", "dataset": "circles"}
    info = load_dataset(DatasetRequest(name="digits28")).info
    [classes] = fit_problems(spec_shapes(_units("mlp", 2)), info, SPARSE)
    assert classes.params == {"outputs": 2, "classes": 10, "dataset": "digits28"}
    assert classes.error().message == ("The model outputs 2 values but dataset 'digits28' has "
                                       "10 classes; change the last layer's units.")


def test_a_deferred_model_is_left_to_keras() -> None:
    """No declared input: neither side can check the input shape before the first batch."""
    spec = get_preset("deferred")
    assert spec_shapes(spec).inputs == ()
    info = load_dataset(DatasetRequest(name="circles")).info
    assert [p.key for p in fit_problems(spec_shapes(spec), info, SPARSE)
            if p.key == INPUT_SHAPE] == []


def test_the_command_line_refuses_before_a_run_exists(tmp_path, capsys) -> None:
    from tfcore.cli import main

    code = main(["train", "--preset", "mlp", "--dataset", "circles", "--steps", "1",
                 "--runs-root", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "expects inputs of shape (28, 28, 1)" in err and "(2,)" in err
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
