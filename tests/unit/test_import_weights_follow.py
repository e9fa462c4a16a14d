"""Issue 24.2: an imported model's weights file follows its spec and is never left behind.

Saving the spec copies the weights to ``models/<name>.weights.h5`` (the saved spec names that
file), saving under another name copies them again, renaming moves them, deleting removes
them, and imported files nothing names any more are pruned. A spec whose file is missing or
does not fit gets a located message and still opens as an architecture. The exported code,
run in the workspace, computes exactly what the file computes.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import keras
import numpy as np
import pytest

from tfcore.errors import SpecError, WorkspaceError
from tfcore.messages import render
from tfcore.model import (
    build_model,
    delete_spec,
    generate,
    import_keras_weights,
    list_specs,
    load_initial_weights,
    load_spec,
    open_checked,
    prune_imported,
    rename_spec,
    save_spec,
    weights_problem,
)
from tfcore.model.roundtrip import max_output_diff, run_generated
from tfcore.workspace import default_workspace


def _saved_model(folder: Path, units: int = 5, seed: int = 0) -> tuple[keras.Model, Path]:
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((4,), name="x"),
                              keras.layers.Dense(units, activation="tanh", name="hidden"),
                              keras.layers.Dense(2, name="out")], name="small")
    path = folder / f"small-{units}-{seed}.keras"
    model.save(path)
    return model, path


def _files(ws) -> set[str]:
    return {p.relative_to(ws.root).as_posix() for p in ws.root.rglob("*.weights.h5")}


def _age(ws, relative: str, seconds: float = 7200.0) -> None:
    stamp = ws.confine(relative).stat().st_mtime - seconds
    os.utime(ws.confine(relative), (stamp, stamp))


def test_the_weights_file_follows_save_rename_and_delete(tmp_path: Path) -> None:
    ws = default_workspace().ensure()
    model, path = _saved_model(tmp_path)
    imported = import_keras_weights(path, ws, shown="small.keras", stem="small").spec
    x = np.random.default_rng(2).standard_normal((3, 4)).astype("float32")

    save_spec(ws, "first", imported)
    saved = load_spec(ws, "first")
    assert saved.weights == "models/first.weights.h5"          # the saved spec owns a copy
    save_spec(ws, "second", saved)                              # save under another name
    assert load_spec(ws, "second").weights == "models/second.weights.h5"
    for name in ("first", "second"):
        spec = load_spec(ws, name)
        assert max_output_diff(model, load_initial_weights(build_model(spec), spec, ws),
                               [x]) == 0.0

    _age(ws, imported.weights)                                  # nothing names it any more
    rename_spec(ws, "first", "third")
    assert list_specs(ws) == ["second", "third"]
    assert _files(ws) == {"models/second.weights.h5", "models/third.weights.h5"}
    third = load_spec(ws, "third")
    assert third.weights == "models/third.weights.h5"
    assert max_output_diff(model, load_initial_weights(build_model(third), third, ws),
                           [x]) == 0.0
    with pytest.raises(WorkspaceError, match="second"):        # a rename never overwrites
        rename_spec(ws, "third", "second")

    save_spec(ws, "second", replace(third, weights=""))         # replaced by an architecture
    assert _files(ws) == {"models/third.weights.h5"}
    delete_spec(ws, "third")
    delete_spec(ws, "second")
    assert _files(ws) == set() and list_specs(ws) == []
    with pytest.raises(WorkspaceError):
        delete_spec(ws, "third")


def test_imports_never_overwrite_each_other_and_named_files_are_kept(tmp_path: Path) -> None:
    ws = default_workspace().ensure()
    first = import_keras_weights(_saved_model(tmp_path, seed=0)[1], ws, stem="same").weights
    second = import_keras_weights(_saved_model(tmp_path, seed=1)[1], ws, stem="same").weights
    assert first != second and {first, second} <= _files(ws)
    drafts = ws.root / "drafts"
    drafts.mkdir()
    (drafts / ("a" * 32 + ".json")).write_text(json.dumps({"spec": {"weights": first}}))
    _age(ws, first)
    _age(ws, second)
    assert prune_imported(ws) == [second]                      # a draft still names the first
    assert _files(ws) == {first}
    fresh = import_keras_weights(_saved_model(tmp_path, seed=2)[1], ws, stem="new").weights
    assert prune_imported(ws) == [] and fresh in _files(ws)    # just imported: kept a while
    no_weights = import_keras_weights(_saved_model(tmp_path, seed=3)[1], ws, stem="arch",
                                      keep_weights=False)
    assert no_weights.weights == "" and no_weights.spec.weights == ""


@pytest.mark.parametrize("damage", ["missing", "not_h5", "wrong_shapes"])
def test_a_missing_or_damaged_weights_file_is_located_and_opens_as_architecture(
        tmp_path: Path, damage: str) -> None:
    ws = default_workspace().ensure()
    _, path = _saved_model(tmp_path)
    save_spec(ws, "broken", import_keras_weights(path, ws, stem="b").spec)
    file = ws.confine("models/broken.weights.h5")
    if damage == "missing":
        file.unlink()
    elif damage == "not_h5":
        file.write_bytes(b"not an hdf5 file")
    else:                                                       # 7 hidden units, not 5
        _saved_model(tmp_path, units=7)[0].save_weights(str(file))
    spec = load_spec(ws, "broken")
    problem = weights_problem(spec, ws)
    assert isinstance(problem, SpecError)
    assert problem.key == ("spec.weights_missing" if damage == "missing"
                           else "spec.weights_damaged")
    for lang in ("en", "zh"):
        text = problem.text(lang)
        assert "models/broken.weights.h5" in text and "broken" in text
        assert str(ws.root) not in text                       # no server path
    opened, said = open_checked(spec, ws)
    assert said is not None and said.key == problem.key
    assert opened.weights == "" and opened.layers == spec.layers
    assert build_model(opened).count_params() == 4 * 5 + 5 + 5 * 2 + 2
    with pytest.raises(SpecError) as raised:
        load_initial_weights(build_model(spec), spec, ws)
    assert raised.value.key == problem.key
    dropped = render("spec.weights_dropped", {"problem": problem.text("en")}, "en")
    assert dropped.endswith("architecture only (fresh weights).")


def test_the_exported_code_run_in_the_workspace_computes_what_the_file_computes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = default_workspace().ensure()
    model, path = _saved_model(tmp_path)
    spec = import_keras_weights(path, ws, stem="code").spec
    x = np.random.default_rng(4).standard_normal((5, 4)).astype("float32")
    monkeypatch.chdir(ws.root)                                  # where the code says they are
    for style in ("sequential", "functional", "subclass", "container"):
        source = generate(spec, style)
        assert f"WEIGHTS = {spec.weights!r}" in source
        assert max_output_diff(model, run_generated(source), [x]) == 0.0, style
        fresh = run_generated(source, weights=None)             # None: freshly drawn
        assert max_output_diff(model, fresh, [x]) > 0.0, style
    assert "WEIGHTS" not in generate(replace(spec, weights=""), "functional")
