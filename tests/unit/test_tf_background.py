"""The server imports TensorFlow only in the background (issue 23, item 14): the software
versions and starting a run need no TensorFlow in the server process, and while the
background import runs another thread's import of TensorFlow or Keras waits for it (two
threads importing TensorFlow at once deadlocked: ``_DeadlockError`` in a server log).
Each case runs in a fresh interpreter: this one has TensorFlow imported already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def _fresh(script: str, *args: str, env: dict | None = None) -> dict:
    """Run ``script`` in a fresh interpreter; the JSON it printed after ``RESULT``."""
    environ = dict(os.environ, PYTHONPATH=str(ROOT), TFLAB_WARM_WORKER="0", **(env or {}))
    out = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, env=environ,
                         capture_output=True, text=True, timeout=900)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, out.stdout[-3000:] + out.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


VERSIONS = r"""
import json, sys
from tfcore.tfenv import versions
light = versions().to_dict()
imported = "tensorflow" in sys.modules or "keras" in sys.modules
import keras, tensorflow as tf
info = tf.sysconfig.get_build_info()
print("RESULT " + json.dumps({"light": light, "imported": imported, "tf": tf.__version__,
      "keras": keras.__version__, "cuda": info.get("cuda_version"),
      "cudnn": info.get("cudnn_version"), "cuda_build": bool(info.get("is_cuda_build"))}))
"""


def test_versions_match_tensorflow_without_importing_it() -> None:
    result = _fresh(VERSIONS)
    light = result["light"]
    assert not result["imported"]
    assert (light["tensorflow"], light["keras"]) == (result["tf"], result["keras"])
    assert (light["cuda"], light["cudnn"], light["built_with_cuda"]) == \
        (result["cuda"], result["cudnn"], result["cuda_build"])


START = r"""
import json, sys
from pathlib import Path
from tests.unit.fixtures_runs import tiny_spec
from tfcore.training import jobs
root = Path(sys.argv[1])
run_id = jobs.start_run(root, {"spec": tiny_spec(), "dataset": {"name": "digits8"},
                               "training": {"steps": 2, "batch_size": 8},
                               "device": {"kind": "cpu"}})
imported = "tensorflow" in sys.modules
state = jobs.wait_for(root, run_id, timeout=600)
body = json.loads((root / run_id / "run.json").read_text())
print("RESULT " + json.dumps({"imported": imported, "state": state,
                              "versions": body["versions"]}))
"""


def test_start_run_does_not_import_tensorflow_in_the_server(tmp_path: Path) -> None:
    result = _fresh(START, str(tmp_path / "runs"))
    assert not result["imported"]
    assert result["state"] == "finished"
    assert result["versions"]["tensorflow"] and result["versions"]["keras"]


# The background import is held at its start until the other thread is seen waiting in
# the gate (or has imported Keras on its own: no gate); the order of events says which.
GATE = r"""
import json, sys, threading
import ui.common.resources as resources

events, release, lock = [], threading.Event(), threading.Lock()

class Watched(threading.Event):
    def wait(self, timeout=None):
        if threading.current_thread() is not resources._PRELOADER[0]:
            with lock:
                events.append("other thread waits")
        return super().wait(timeout)

resources._LOADED = Watched()
real = resources.configure_server_process
def slow_configure():
    release.wait()
    events.append("background import starts")
    real()
resources.configure_server_process = slow_configure

def other():
    import keras  # noqa: F401
    events.append("other thread imported keras")

resources.preload_tensorflow()
thread = threading.Thread(target=other)
thread.start()
while True:                       # a state: waiting in the gate, or done without one
    with lock:
        if events or not thread.is_alive():
            break
    thread.join(0.05)
release.set()
thread.join()
resources._PRELOADER[0].join()
import builtins
print("RESULT " + json.dumps({"events": events, "loaded": resources.tensorflow_loaded(),
                              "gate_left": builtins.__import__ is not resources._IMPORT}))
"""


def test_an_import_during_the_background_import_waits_for_it() -> None:
    result = _fresh(GATE)
    assert result["events"] == ["other thread waits", "background import starts",
                                "other thread imported keras"]
    assert result["loaded"] and not result["gate_left"]
