"""Streamlit must not reset Keras after every script run (ui/common/script_hooks.py).

Streamlit's script runner calls ``keras.backend.clear_session()`` (a full gc.collect with
TensorFlow loaded) after each script and fragment run; with a classroom of live panels that
was most of the server's time. These tests check the hook is in force and that a real page
run leaves Keras' global state alone.
"""

from __future__ import annotations

import keras
from streamlit.runtime.scriptrunner import script_runner

from tests.app.apptest_helpers import open_page
from ui.common import keras_reset_disabled


def test_the_hook_is_installed_on_import_of_ui_common() -> None:
    assert keras_reset_disabled()
    assert script_runner._clean_problem_modules.__module__ == "ui.common.script_hooks"


def test_cleanup_after_a_run_does_not_clear_the_keras_session(monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(keras.backend, "clear_session", lambda *a, **k: calls.append(1))
    script_runner._clean_problem_modules()
    assert calls == []


def test_a_page_run_keeps_keras_global_state() -> None:
    before = keras.backend.get_uid("tflab_probe")
    at = open_page("app_pages/home.py")
    assert not at.exception
    # clear_session() would have reset the uid counters: the next uid would be 1 again.
    assert keras.backend.get_uid("tflab_probe") == before + 1
    assert before >= 1


def test_the_cleanup_freezes_the_heap_after_new_imports_only(monkeypatch) -> None:
    import gc

    from ui.common import script_hooks

    monkeypatch.setattr(script_hooks._Heap, "modules_at_freeze", 0)
    monkeypatch.setattr(script_hooks._Heap, "freezes", 0)
    frozen = gc.get_freeze_count()
    script_runner._clean_problem_modules()            # many modules since "0": freezes
    assert gc.get_freeze_count() > frozen
    assert script_hooks._Heap.modules_at_freeze == len(__import__("sys").modules)
    assert script_hooks.freeze_heap() is False        # nothing imported since
    monkeypatch.setattr(script_hooks._Heap, "modules_at_freeze", 0)
    monkeypatch.setattr(script_hooks._Heap, "freezes", script_hooks.MAX_FREEZES)
    assert script_hooks.freeze_heap() is False        # the per-process cap
