"""Keep Streamlit from resetting Keras after every script run.

After each script and fragment run, Streamlit's script runner calls
``keras.backend.clear_session()`` whenever Keras is imported (its
``_clean_problem_modules``). With TensorFlow loaded that call runs a full
``gc.collect()`` and costs 0.2-1 s of the one Python process every session shares; a
classroom whose live panels redraw every second spends almost all of the server's time
in it (bench/bench_sessions.py; bench/bench_gc.py measures the collection). It also resets
Keras' global state while other sessions' scripts are building models in their threads.

TF Lab keeps no Keras state between runs that needs clearing: every model a page builds is
built from a spec with explicit layer names, held per session or in a cache, and trained
in its own worker process. So the hook keeps Streamlit's other cleanup (closing
matplotlib figures) and drops the Keras reset. Applied once per process, on import of
``ui.common``; ``keras_reset_disabled()`` tells whether it is in force.

The same hook freezes the long-lived heap after runs that imported modules
(:func:`freeze_heap`), so Python's own occasional full collections stay cheap.
"""

from __future__ import annotations

import gc
import sys
import threading
from typing import Any

from ui.common.st_compat import cleanup_hook, set_cleanup_hook

_MARK = "_tflab_keeps_keras"
NEW_MODULES = 50          # freeze again once this many modules were imported since
MAX_FREEZES = 4           # per process: the big imports come first; bounded leftovers


class _Heap:
    lock = threading.Lock()
    modules_at_freeze = 0
    freezes = 0


def freeze_heap() -> bool:
    """Move the objects alive now to Python's permanent generation once a run has imported
    a batch of new modules (TensorFlow, Keras, Altair, pandas: millions of long-lived
    objects). Python's full collections, which allocations trigger now and then, stop
    traversing them: 8 % of a classroom server's time went there (bench_sessions, py-spy).
    Cheap when nothing was imported (one length check); young garbage is collected first
    so little that is already dead is frozen. At most :data:`MAX_FREEZES` times per process:
    an object alive at a freeze is never collected by the cycle collector, so later ones
    would keep ever more of what sessions held at that moment. True when it froze."""
    if (len(sys.modules) - _Heap.modules_at_freeze < NEW_MODULES
            or _Heap.freezes >= MAX_FREEZES):
        return False
    with _Heap.lock:
        if (len(sys.modules) - _Heap.modules_at_freeze < NEW_MODULES
                or _Heap.freezes >= MAX_FREEZES):
            return False
        gc.collect(1)
        gc.freeze()
        _Heap.modules_at_freeze = len(sys.modules)
        _Heap.freezes += 1
    return True


def _clean_problem_modules() -> None:
    """Streamlit's post-run cleanup without the Keras reset; freezes the heap after a run
    that imported new modules (:func:`freeze_heap`)."""
    freeze_heap()
    pyplot: Any = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        try:
            pyplot.close("all")
        except Exception:  # noqa: BLE001,S110 - as Streamlit's own: never fail a run here
            pass


setattr(_clean_problem_modules, _MARK, True)


def disable_keras_reset() -> bool:
    """Replace the script runner's cleanup hook; False when this Streamlit has none (the
    hook moved: nothing is patched and Streamlit's behaviour is unchanged)."""
    return set_cleanup_hook(_clean_problem_modules)


def keras_reset_disabled() -> bool:
    """Whether Streamlit's script runner now skips ``keras.backend.clear_session()``."""
    return getattr(cleanup_hook(), _MARK, False)
