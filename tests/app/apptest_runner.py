"""Two costs Streamlit's AppTest pays on every run, which the AppTest tier (some 450 tests,
many running a page several times) paid hundreds of times; measured with py-spy over
``pytest -n 2 tests/app``, together about a seventh of the tier's CPU:

* every new ``AppTest`` scans all installed distributions' metadata for v2 component
  manifests (``scan_component_manifests``: 0.07-0.09 s of CPU; this project has none).
  The packages do not change while the tests run, so the scan is done once per process.
* every run waits for its script thread by polling ``runner.script_stopped()`` every
  millisecond, and each poll scans the run's whole event list
  (``require_widgets_deltas``). The script thread emits SHUTDOWN before it returns, so
  joining it (with the same timeout) waits for the same moment without the polling; a run
  that is not done by then is stopped and reported exactly as before.

Both replace private functions of the Streamlit written for (:data:`WRITTEN_FOR`); with any
other version nothing is replaced and AppTest runs as shipped
(``tests/app/test_apptest_runner.py`` fails until this module is checked against it).
"""

from __future__ import annotations

import functools

import streamlit

WRITTEN_FOR = "1.67.0"


def _join_script_thread(runner, timeout: float = 3) -> None:
    """``require_widgets_deltas`` without the polling: the same result, the same error."""
    thread = runner._script_thread
    if thread is not None:
        thread.join(timeout)
    if runner.script_stopped():
        return
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


def install() -> bool:
    """Replace the two costs for this process; True when they are replaced."""
    if streamlit.__version__ != WRITTEN_FOR:
        return False
    from streamlit.components.v2 import manifest_scanner
    from streamlit.testing.v1 import local_script_runner

    if not hasattr(manifest_scanner.scan_component_manifests, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(
            manifest_scanner.scan_component_manifests)
    local_script_runner.require_widgets_deltas = _join_script_thread
    return True


def installed() -> bool:
    """Whether :func:`install` has replaced both in this process."""
    from streamlit.components.v2 import manifest_scanner
    from streamlit.testing.v1 import local_script_runner

    return (hasattr(manifest_scanner.scan_component_manifests, "cache_info")
            and local_script_runner.require_widgets_deltas is _join_script_thread)
