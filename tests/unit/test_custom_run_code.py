"""A run's own copy of user-written code against the workspace's current files: which
copies changed, went missing or are damaged (never raising), and putting them back
through ``save_code``'s checks (a file with a syntax error writes nothing)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tfcore.custom import (
    TEMPLATES,
    TRUSTED_ENV,
    CodeChange,
    CustomCodeError,
    load_sources,
    prepare_run,
    restore_run_code,
    run_code_changes,
    run_code_names,
    run_code_stamp,
    save_code,
)
from tfcore.custom.store import MAX_SOURCE_BYTES

LINEAR = TEMPLATES["linear"].source
LOSS = TEMPLATES["mse_loss"].source
BROKEN = ("import keras\n\nclass Broken(keras.layers.Layer):\n"
          "    def call(self, x:\n        return x\n")


@pytest.fixture()
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A workspace with linear.py and mse_loss.py saved, and a run that used both: its
    folder written by ``prepare_run`` as the worker does."""
    monkeypatch.setenv(TRUSTED_ENV, "1")
    ws, run = tmp_path / "ws", tmp_path / "ws" / "runs" / "run-1"
    run.mkdir(parents=True)
    save_code(ws, "linear", LINEAR)
    save_code(ws, "mse_loss", LOSS)
    prepare_run(run, {"custom_code": {"linear": LINEAR, "mse_loss": LOSS}})
    yield run, ws
    load_sources({})


def _ws_file(ws: Path, name: str) -> Path:
    return ws / "custom" / f"{name}.py"


def test_unchanged_code_has_no_changes(dirs) -> None:
    run, ws = dirs
    assert run_code_names(run) == ["linear", "mse_loss"]
    assert run_code_changes(run, ws) == []


def test_a_run_without_code_has_no_changes(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    assert run_code_changes(tmp_path / "run", tmp_path) == []
    assert run_code_changes(tmp_path / "no-such-run", tmp_path) == []
    assert run_code_stamp(tmp_path / "run", tmp_path) == ()


def test_edited_and_deleted_files_are_named(dirs) -> None:
    run, ws = dirs
    save_code(ws, "linear", LINEAR.replace("units=1", "units=2"))
    assert run_code_changes(run, ws) == [CodeChange("linear", "changed")]
    _ws_file(ws, "mse_loss").unlink()
    assert run_code_changes(run, ws) == [CodeChange("linear", "changed"),
                                         CodeChange("mse_loss", "missing")]
    assert CodeChange("linear", "changed").file == "linear.py"


def test_an_unreadable_workspace_file_counts_as_changed(dirs) -> None:
    run, ws = dirs
    _ws_file(ws, "linear").write_bytes(b"x = '\xff'\n")
    assert run_code_changes(run, ws) == [CodeChange("linear", "changed")]


def test_stamp_follows_the_files(dirs) -> None:
    run, ws = dirs
    before = run_code_stamp(run, ws)
    assert before == run_code_stamp(run, ws)
    assert [entry[0] for entry in before] == ["linear.py", "mse_loss.py"]
    save_code(ws, "linear", LINEAR + "\n# edited\n")
    assert run_code_stamp(run, ws) != before
    after_edit = run_code_stamp(run, ws)
    _ws_file(ws, "mse_loss").unlink()
    assert run_code_stamp(run, ws) != after_edit


def test_damaged_run_folder_never_raises(dirs, tmp_path: Path) -> None:
    run, ws = dirs
    folder = run / "custom"
    outside = tmp_path / "outside.py"
    outside.write_text(LINEAR, encoding="utf-8")
    save_code(ws, "link", LINEAR)          # same bytes as the symlink's target
    (folder / "notes.txt").write_text("junk")
    (folder / "Bad-Name.py").write_text(LINEAR)
    (folder / "__init__.py").write_text("")
    (folder / ("a" * 60 + ".py")).write_text(LINEAR)
    (folder / "link.py").symlink_to(outside)             # not followed out of the run
    (folder / "latin.py").write_bytes(b"# caf\xe9\nimport keras\n")
    (folder / "big.py").write_bytes(b"#" * (MAX_SOURCE_BYTES + 1))
    (folder / "subdir.py").mkdir()
    os.mkfifo(folder / "pipe.py")                        # must not block the reader
    changes = run_code_changes(run, ws)
    assert changes == [CodeChange(n, "unreadable")
                       for n in ("big", "latin", "link", "pipe", "subdir")]
    assert run_code_names(run) == ["big", "latin", "linear", "link", "mse_loss", "pipe",
                                   "subdir"]
    assert len(run_code_stamp(run, ws)) == 7
    for name in ("big", "latin", "link", "pipe", "subdir"):
        with pytest.raises(CustomCodeError) as info:
            restore_run_code(run, ws, [name])
        assert info.value.key == "custom.err.run_copy"
    with pytest.raises(CustomCodeError) as info:
        restore_run_code(run, ws, ["Bad-Name"])
    assert info.value.key == "custom.err.name"
    assert _ws_file(ws, "link").read_text(encoding="utf-8") == LINEAR


def test_a_symlinked_code_folder_is_not_read(tmp_path: Path) -> None:
    ws, run, elsewhere = tmp_path / "ws", tmp_path / "run", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "linear.py").write_text(LINEAR, encoding="utf-8")
    run.mkdir()
    (run / "custom").symlink_to(elsewhere, target_is_directory=True)
    assert run_code_changes(run, ws) == []
    assert run_code_names(run) == []
    with pytest.raises(CustomCodeError):
        restore_run_code(run, ws, ["linear"])
    assert not (ws / "custom").exists()


def test_restore_writes_back_and_no_change_remains(dirs) -> None:
    run, ws = dirs
    save_code(ws, "linear", LINEAR.replace("units=1", "units=3"))
    _ws_file(ws, "mse_loss").unlink()
    assert len(run_code_changes(run, ws)) == 2
    assert restore_run_code(run, ws, ["mse_loss", "linear"]) == ["linear", "mse_loss"]
    assert run_code_changes(run, ws) == []
    for name, source in (("linear", LINEAR), ("mse_loss", LOSS)):
        assert _ws_file(ws, name).read_bytes() == source.encode("utf-8")
    assert sorted(p.name for p in (ws / "custom").iterdir()) == ["linear.py", "mse_loss.py"]


def test_restore_of_a_syntax_error_is_refused_and_writes_nothing(dirs) -> None:
    run, ws = dirs
    edited = LINEAR.replace("units=1", "units=4")
    save_code(ws, "linear", edited)
    (run / "custom" / "broken.py").write_text(BROKEN, encoding="utf-8")
    assert run_code_changes(run, ws) == [CodeChange("broken", "missing"),
                                         CodeChange("linear", "changed")]
    with pytest.raises(CustomCodeError) as info:
        restore_run_code(run, ws, ["linear", "broken"])
    assert info.value.key == "custom.err.syntax"
    assert str(info.value).startswith("broken.py, line 4, column ")
    assert info.value.params["line"] == 4
    assert _ws_file(ws, "linear").read_text(encoding="utf-8") == edited    # not written
    assert not _ws_file(ws, "broken").exists()
    assert sorted(p.name for p in (ws / "custom").iterdir()) == ["linear.py", "mse_loss.py"]
