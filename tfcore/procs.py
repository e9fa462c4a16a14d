"""Whether a process this project started is still alive (a training worker, a decode
child): it exists and is not a zombie."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int, reap: bool = False) -> bool:
    """``kill(pid, 0)`` finds it and ``/proc`` does not show it as a zombie; with ``reap``
    a zombie child of this process is reaped. True where ``/proc`` cannot be read."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return True
    if state != "Z":
        return True
    if reap:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    return False
