"""Saving tensors (T5): .npy/.npz round trips in the workspace; object arrays refused."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tfcore.errors import WorkspaceError
from tfcore.labs.arrays import ArraysError, describe, list_saved, load_arrays, save_arrays
from tfcore.workspace import Workspace


@pytest.fixture()
def ws(tmp_path) -> Workspace:
    return Workspace(tmp_path).ensure()


def test_npy_round_trip(ws: Workspace) -> None:
    x = tf.random.stateless_uniform((3, 4), seed=(1, 2))
    saved = save_arrays(ws, "x", x)
    assert saved.relative == "exports/arrays/x.npy" and saved.path.is_file()
    np.testing.assert_array_equal(load_arrays(ws, saved.relative), x.numpy())


def test_list_and_dict_round_trip(ws: Workspace) -> None:
    items = [tf.ones(2), tf.zeros((3, 3), dtype=tf.int32)]
    saved = save_arrays(ws, "pair", items)
    assert saved.kind == "list" and saved.relative.endswith(".npz")
    back = load_arrays(ws, saved.relative)
    assert isinstance(back, list) and [a.shape for a in back] == [(2,), (3, 3)]
    assert back[1].dtype == np.int32
    d = save_arrays(ws, "weights", {"w": tf.ones((2, 1)), "b": np.arange(3)})
    back = load_arrays(ws, d.relative)
    assert set(back) == {"w", "b"} and back["b"].tolist() == [0, 1, 2]
    assert describe(ws, d.relative).entries["w"] == ((2, 1), "float32")
    assert set(list_saved(ws)) == {saved.relative, d.relative}


def test_object_array_refused_on_save_and_load(ws: Workspace) -> None:
    with pytest.raises(ArraysError) as info:
        save_arrays(ws, "obj", np.array([1, "a", None], dtype=object))
    assert info.value.key == "foundations.err.object_array"
    assert not list_saved(ws)
    evil = ws.root / "exports" / "arrays" / "evil.npy"
    evil.parent.mkdir(parents=True, exist_ok=True)
    np.save(evil, np.array([{"payload": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ArraysError, match="pickled") as info:
        load_arrays(ws, "exports/arrays/evil.npy")
    assert info.value.key == "foundations.err.array_pickle"


def test_names_and_paths_are_confined(ws: Workspace) -> None:
    with pytest.raises(ArraysError):
        save_arrays(ws, "../escape", np.zeros(2))
    with pytest.raises(WorkspaceError):
        load_arrays(ws, "../../etc/passwd")
    with pytest.raises(ArraysError):
        load_arrays(ws, "exports/arrays/missing.npy")
