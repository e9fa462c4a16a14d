"""Hostile files and names (issue 13, items 6 and 7): damaged and foreign ``.keras`` files,
weights file names, interrupted checkpoint saves, garbage ``.npy``, overlong paths; every
message says what is wrong and shows no server path outside the workspace."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from tfcore.errors import SpecError, TFLabError, WeightsError, WorkspaceError
from tfcore.labs.arrays import ArraysError, load_arrays
from tfcore.model import import_keras
from tfcore.runs import list_checkpoints, remove_leftovers
from tfcore.weights import load_model_file, safe_file_stem
from tfcore.workspace import Workspace, default_workspace
from ui.common.i18n import catalog


def _translated(err: TFLabError) -> list[str]:
    return [catalog(lang)[err.key].format(**err.params) for lang in ("en", "zh")]


@pytest.fixture(scope="module")
def good_keras(tmp_path_factory) -> Path:
    import keras

    path = tmp_path_factory.mktemp("keras") / "good.keras"
    keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")]).save(path)
    return path


def _damaged(good: Path, folder: Path, how: str) -> Path:
    data = good.read_bytes()
    target = folder / f"{how}.keras"
    if how == "garbage":
        target.write_bytes(b"this is not a zip at all")
    elif how == "empty":
        target.write_bytes(b"")
    elif how == "half":
        target.write_bytes(data[: len(data) // 2])
    elif how == "tail":
        target.write_bytes(data[:-30])
    elif how == "no_config":
        with zipfile.ZipFile(target, "w") as archive:
            archive.writestr("metadata.json", "{}")
    elif how == "bad_config":
        with zipfile.ZipFile(target, "w") as archive:
            archive.writestr("config.json", "{not json")
    elif how == "deep_config":
        with zipfile.ZipFile(target, "w") as archive:
            archive.writestr("config.json", "[" * 50_000 + "]" * 50_000)
    return target


DAMAGE = ["garbage", "empty", "half", "tail", "no_config", "bad_config", "deep_config"]


@pytest.mark.parametrize("how", DAMAGE)
def test_damaged_keras_file_is_called_damaged_not_missing(good_keras: Path, tmp_path: Path,
                                                          how: str) -> None:
    path = _damaged(good_keras, tmp_path, how)
    with pytest.raises(SpecError) as info:
        import_keras(path, shown=f"uploaded-{how}.keras")
    err = info.value
    assert err.key in ("spec.import_not_keras", "spec.too_deep")
    assert "not found" not in err.message.lower() and str(tmp_path) not in err.message
    for text in _translated(err):
        assert str(tmp_path) not in text
    with pytest.raises(TFLabError) as info:                  # the weights lab's loader
        load_model_file(path)
    assert str(tmp_path) not in info.value.message and "not found" not in info.value.message


CUSTOM_CONFIGS = [
    ({"module": None, "class_name": "Evil", "registered_name": "evil>Evil"}, "evil>Evil"),
    ({"module": "my.package", "class_name": "Layer9", "registered_name": None},
     "my.package.Layer9"),
    ({"module": "__main__", "class_name": "Thing", "registered_name": "Thing9"}, "Thing9"),
]


@pytest.mark.parametrize("layer,named", CUSTOM_CONFIGS)
def test_keras_file_with_a_custom_class_names_it(good_keras: Path, tmp_path: Path,
                                                 layer: dict, named: str) -> None:
    import json

    with zipfile.ZipFile(good_keras) as archive:
        config = json.loads(archive.read("config.json"))
        members = {n: archive.read(n) for n in archive.namelist()}
    config["config"]["layers"].append({**layer, "config": {"name": "x"}})
    members["config.json"] = json.dumps(config).encode()
    path = tmp_path / "custom.keras"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(SpecError) as info:
        import_keras(path, shown="custom.keras")
    assert info.value.key == "spec.import_custom_class" and info.value.params["cls"] == named
    assert all(named in text for text in _translated(info.value))


def test_good_keras_file_still_imports(good_keras: Path) -> None:
    spec = import_keras(good_keras)
    assert [e.type for e in spec.layers] == ["Dense"]


def test_missing_model_file_shows_no_server_path(tmp_path: Path) -> None:
    with pytest.raises(WeightsError) as info:
        load_model_file(tmp_path / "nowhere" / "m.keras")
    assert str(tmp_path) not in info.value.message and info.value.params["path"] == "m.keras"
    ws = default_workspace().ensure()
    with pytest.raises(WeightsError) as info:
        load_model_file(ws.root / "models" / "absent.keras")
    assert info.value.params["path"] == "models/absent.keras"


# --- weights file names ----------------------------------------------------------------

@pytest.mark.parametrize("given,stem", [
    ("mlp weights", "mlp_weights"), ("训练权重", "训练权重"), ("../../etc/x", "etc_x"),
    ("a\x00b", "a_b"), ("x" * 300, "x" * 64), ("![x](http://e.com/a.png)", "x_http_e.com_a.png"),
    ("-rf", "rf"), ("run-3.ckpt-12", "run-3.ckpt-12")])
def test_weights_names_are_readable(given: str, stem: str) -> None:
    assert safe_file_stem(given) == stem


@pytest.mark.parametrize("given", ["", "..", ".", "...", "___", "\x00", "///", " ", "-._"])
def test_weights_names_without_letters_are_refused(given: str) -> None:
    with pytest.raises(WeightsError) as info:
        safe_file_stem(given)
    assert info.value.key == "errors.weights_file_name"
    assert all(text for text in _translated(info.value))
    assert safe_file_stem(given, default="weights") == "weights"


# --- interrupted checkpoint saves ------------------------------------------------------

def test_interrupted_save_leftovers_are_reported_then_removed(tmp_path: Path) -> None:
    import tensorflow as tf

    folder = tmp_path / "ckpt"
    ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
    manager = tf.train.CheckpointManager(ckpt, str(folder), max_to_keep=3)
    manager.save(checkpoint_number=1)
    manager.save(checkpoint_number=2)
    (folder / "ckpt-3_temp").mkdir()
    (folder / "ckpt-3_temp" / "part-00000-of-00001.data-00000-of-00001").write_bytes(b"x")
    (folder / "checkpoint.tmp8c1f2e").write_text("partial")
    (folder / "ckpt-4.index.tempstate123").write_bytes(b"")
    listing = list_checkpoints(folder)
    assert [e.number for e in listing.entries] == [1, 2] and all(e.ok for e in listing.entries)
    assert listing.leftovers == ("checkpoint.tmp8c1f2e", "ckpt-3_temp/",
                                 "ckpt-4.index.tempstate123")
    assert any("interrupted save" in str(p) for p in listing.problems)
    assert remove_leftovers(folder) == listing.leftovers
    after = list_checkpoints(folder)
    assert after.leftovers == () and [e.number for e in after.entries] == [1, 2]
    assert not after.problems
    assert {p.name for p in folder.iterdir()} == {
        "checkpoint", "ckpt-1.index", "ckpt-1.data-00000-of-00001", "ckpt-2.index",
        "ckpt-2.data-00000-of-00001"}


# --- garbage .npy, long paths ----------------------------------------------------------

@pytest.mark.parametrize("payload", [b"garbage", b"", b"\x80\x04\x95 pickle-like", b"PK",
                                     b"\x93NUMP"])
def test_garbage_npy_is_not_called_pickled(tmp_path: Path, payload: bytes) -> None:
    ws = Workspace(tmp_path).ensure()
    (tmp_path / "exports").mkdir(exist_ok=True)
    (tmp_path / "exports" / "bad.npy").write_bytes(payload)
    with pytest.raises(ArraysError) as info:
        load_arrays(ws, "exports/bad.npy")
    assert info.value.key == "foundations.err.array_format"
    assert "pickle" not in info.value.message


def test_pickled_npy_is_still_called_pickled(tmp_path: Path) -> None:
    ws = Workspace(tmp_path).ensure()
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ArraysError) as info:
        load_arrays(ws, "obj.npy")
    assert info.value.key == "foundations.err.array_pickle"


@pytest.mark.parametrize("path", ["x" * 5000, "a/" * 2000, "数" * 100, "x" * 256,
                                  "ok/" + "y" * 300 + "/z"])
def test_long_paths_get_a_message(path: str) -> None:
    with pytest.raises(WorkspaceError) as info:
        default_workspace().confine(path)
    err = info.value
    assert err.key == "errors.path_too_long" and len(err.message) < 300
    assert all(text for text in _translated(err))
