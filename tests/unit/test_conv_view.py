"""A CNN run opened up at any checkpoint (``tfcore.runs.conv_view``), on a real tiny CNN
trained by the worker process (checkpoints 4 and 8): the filters are the checkpoint's
kernel exactly, the feature maps are a Keras sub-model's output, filters change between
checkpoints; each bad input gets a located error; the ``ckpt conv`` command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.unit.fixtures_runs import DATASET, make_run, make_worker_run, tiny_cnn_spec
from tfcore.cli import main
from tfcore.errors import CheckpointError, DatasetError, RunError
from tfcore.runs import conv_view, run_conv_layers
from tfcore.runs.ckpt_variables import list_variables, read_tensor

pytestmark = pytest.mark.shared_workspace      # the runs are trained once for the module
IMAGE = 5


@pytest.fixture(scope="module")
def cnn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("conv_runs")
    return runs / make_worker_run(runs, name="conv_tiny", spec=tiny_cnn_spec(), steps=8,
                                  ckpt_every=4)


@pytest.fixture(scope="module")
def mlp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("mlp_runs")
    return runs / make_run(runs, name="no_conv", steps=2, ckpt_every=2)


def _kernel(run_dir: Path, number: int) -> np.ndarray:
    """The conv kernel as the checkpoint file holds it (found by its object-graph name)."""
    variables = list_variables(run_dir, number)
    key = next(v.key for v in variables.variables
               if v.label.startswith("model/") and len(v.shape) == 4)
    return read_tensor(variables.prefix, key)


def _test_image(index: int) -> np.ndarray:
    from tfcore.data import DatasetRequest, load_dataset

    x, _ = load_dataset(DatasetRequest.from_dict(DATASET)).split("test")
    return np.asarray(x[index])


def test_the_run_has_two_checkpoints(cnn: Path) -> None:
    assert sorted(p.name for p in (cnn / "ckpt").glob("*.index")) == \
        ["ckpt-4.index", "ckpt-8.index"]
    assert run_conv_layers(cnn).conv == ("conv",)


@pytest.mark.parametrize("number", [4, 8])
def test_filters_are_the_checkpoints_kernel(cnn: Path, number: int) -> None:
    view = conv_view(cnn, number, IMAGE)
    saved = _kernel(cnn, number)
    assert view.filters.shape == (3, 3, 1, 4) == saved.shape
    assert np.abs(view.filters - saved).max() == 0
    assert np.array_equal(view.filter_min, saved.reshape(-1, 4).min(axis=0))
    assert np.array_equal(view.filter_max, saved.reshape(-1, 4).max(axis=0))
    assert (view.number, view.step, view.checkpoint, view.layer) == \
        (number, number, f"ckpt-{number}", "conv")


def test_latest_checkpoint_is_the_default(cnn: Path) -> None:
    assert conv_view(cnn).number == 8


@pytest.mark.parametrize("number", [4, 8])
def test_feature_maps_are_a_keras_sub_models_output(cnn: Path, number: int) -> None:
    import keras
    import tensorflow as tf

    from tfcore.model import build_model, from_dict

    view = conv_view(cnn, number, IMAGE)
    model = build_model(from_dict(tiny_cnn_spec()))      # restored here, without conv_view
    tf.train.Checkpoint(model=model).restore(str(cnn / "ckpt" / f"ckpt-{number}")) \
        .expect_partial()
    sub = keras.Model(model.inputs[0], model.get_layer("conv").output)
    expected = np.asarray(sub(_test_image(IMAGE)[None]))[0]
    assert view.maps.shape == expected.shape == (6, 6, 4)
    np.testing.assert_allclose(view.maps, expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(view.image, _test_image(IMAGE))
    assert view.test_count == 359 and view.image_index == IMAGE


def test_filters_change_between_the_first_and_last_checkpoint(cnn: Path) -> None:
    first, last = conv_view(cnn, 4), conv_view(cnn, 8)
    assert np.abs(first.filters - last.filters).max() > 1e-4
    growth = dict(last.growth)
    assert list(growth) == [4, 8]
    assert growth[4] == pytest.approx(float(np.abs(_kernel(cnn, 4)).max()))
    assert growth[8] == pytest.approx(float(np.abs(_kernel(cnn, 8)).max()))
    assert first.scale == last.scale == max(growth.values())


def test_what_is_returned_is_capped(cnn: Path) -> None:
    view = conv_view(cnn, 8, IMAGE, limit=3)
    assert view.filters.shape[-1] == view.maps.shape[-1] == 3
    assert (view.filters_left_out, view.maps_left_out) == (1, 1)
    assert view.to_dict()["filters"]["left_out"] == 1


def test_a_run_without_a_conv_layer(mlp: Path) -> None:
    assert run_conv_layers(mlp).conv == ()
    with pytest.raises(RunError) as err:
        conv_view(mlp)
    assert err.value.key == "runs.err.no_conv"
    assert "flatten (Flatten), dense (Dense), logits (Dense), softmax (Softmax)" in \
        err.value.message
    assert "Conv2D" in err.value.text("zh") and "dense (Dense)" in err.value.text("zh")


@pytest.mark.parametrize("index", [359, 10_000, -1])
def test_an_image_index_out_of_range(cnn: Path, index: int) -> None:
    with pytest.raises(DatasetError) as err:
        conv_view(cnn, 8, index)
    assert err.value.key == "runs.err.image_index"
    assert err.value.message == (f"There is no test image {index}: the test split of "
                                 "digits8 has 359 images, numbered 0 to 358.")


def test_a_checkpoint_that_does_not_exist(cnn: Path) -> None:
    with pytest.raises(CheckpointError) as err:
        conv_view(cnn, 5)
    assert err.value.key == "runs.err.no_ckpt"
    assert "No checkpoint 5" in err.value.message and "4, 8" in err.value.message


def test_a_layer_that_is_not_a_conv_layer(cnn: Path) -> None:
    with pytest.raises(RunError) as err:
        conv_view(cnn, 8, 0, "logits")
    assert err.value.key == "runs.err.not_conv"
    assert "'logits'" in err.value.message and err.value.message.endswith("layers: conv.")


@pytest.mark.parametrize("damage", ["truncated", "data_missing"])
def test_a_damaged_checkpoint(cnn: Path, tmp_path: Path, damage: str) -> None:
    copy = tmp_path / cnn.name
    shutil.copytree(cnn, copy)
    data = next((copy / "ckpt").glob("ckpt-4.data-*"))
    if damage == "truncated":
        data.write_bytes(data.read_bytes()[:100])
    else:
        data.unlink()
    with pytest.raises(CheckpointError) as err:
        conv_view(copy, 4)
    assert err.value.key == "runs.err.damaged"
    assert err.value.message.startswith(f"Checkpoint ckpt-4 of run {cnn.name} is damaged: ")
    assert conv_view(copy, 8).growth == ((8, conv_view(cnn, 8).growth[1][1]),)


def test_cli_prints_shapes_and_statistics(cnn: Path, capsys) -> None:
    assert main(["ckpt", "conv", str(cnn), "--ckpt", "4", "--image", str(IMAGE)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"Run {cnn.name}, checkpoint ckpt-4 (step 4): layer conv (Conv2D); "
                      "Conv2D layers: conv")
    assert out[1].startswith("Filters (3, 3, 1, 4): 4 of 4 shown (0 left out)")
    kernel = _kernel(cnn, 4).reshape(-1, 4)
    assert out[3].split() == ["0", f"{kernel[:, 0].min():.4f}", f"{kernel[:, 0].max():.4f}"]
    assert f"Test image {IMAGE} of 359: shape (8, 8, 1)" in out[7]
    assert out[8] == "Feature maps (6, 6, 4): 4 of 4 shown (0 left out)"


def test_cli_json_has_the_values_rounded(cnn: Path, capsys) -> None:
    assert main(["ckpt", "conv", str(cnn), "--checkpoint", "4", "--image", str(IMAGE),
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    view = conv_view(cnn, 4, IMAGE)
    np.testing.assert_allclose(doc["filters"]["values"], view.filters, atol=5e-5)
    np.testing.assert_allclose(doc["maps"]["values"], view.maps, atol=5e-5)
    assert doc["filters"]["values"] == np.round(view.filters.astype(float), 4).tolist()
    assert str(doc["image"]["label"]) == doc["image"]["label_name"]     # digits: "0".."9"


def test_cli_bad_image_is_a_located_user_error(cnn: Path, capsys) -> None:
    assert main(["ckpt", "conv", str(cnn), "--image", "400"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: There is no test image 400: the test split of digits8 "
                          "has 359 images") and "Traceback" not in err
