"""HAProxy in front of the dashboard's server processes: its configuration and its binary.

Streamlit keeps a browser tab's whole session (its websocket, uploads, media files) in
the process that served the tab's page, so every request of one browser must reach the
same process. HAProxy inserts a cookie (:data:`COOKIE`) naming the process it chose for a
browser's first request (least connections) and sends every later request with that
cookie, the websocket included, to the same one; a process that fails its health check
(``/_stcore/health``) gets no new browsers until it answers again.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

COOKIE = "tflab_server"
HAPROXY_PATHS = ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")
INSTALL_HINT = "install HAProxy first: sudo apt-get install haproxy (make class does it as root)"
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_HOST = re.compile(r"^[A-Za-z0-9_.:-]{1,253}$")


def find_haproxy() -> str | None:
    """The ``haproxy`` binary on PATH or in the usual places, None when not installed."""
    found = shutil.which("haproxy")
    if found:
        return found
    return next((p for p in HAPROXY_PATHS if Path(p).is_file()), None)


def _address(host: str, port: int) -> str:
    if not _HOST.match(host) or not 0 < int(port) < 65536:
        raise ValueError(f"not a host and port: {host!r}:{port!r}")
    return f"[{host}]:{int(port)}" if ":" in host else f"{host}:{int(port)}"


def haproxy_config(bind_host: str, bind_port: int,
                   backends: list[tuple[str, str, int]]) -> str:
    """The configuration for one frontend on ``bind_host:bind_port`` and one backend
    server per (name, host, port), with cookie affinity and health checks.

    Raises:
        ValueError: no backend, or a name, host or port that cannot go in the file."""
    if not backends:
        raise ValueError("no backend server")
    lines = [
        "# Written by the TF Lab class setup (ui/serve/proxy.py) on every start.",
        "global",
        "    maxconn 4096",
        "",
        "defaults",
        "    mode http",
        "    timeout connect 5s",
        "    timeout client 1h",
        "    timeout server 1h",
        "    timeout tunnel 8h            # a tab's websocket lives as long as the lesson",
        "    timeout http-request 30s",
        "    option forwardfor",
        "",
        "frontend tflab",
        f"    bind {_address(bind_host, bind_port)}",
        "    default_backend dashboard",
        "",
        "backend dashboard",
        "    balance leastconn",
        f"    cookie {COOKIE} insert indirect nocache httponly",
        "    option httpchk GET /_stcore/health",
        "    http-check expect status 200",
    ]
    for name, host, port in backends:
        if not _NAME.match(name):
            raise ValueError(f"not a server name: {name!r}")
        lines.append(f"    server {name} {_address(host, port)} cookie {name} "
                     "check inter 2s fall 3 rise 1")
    return "\n".join(lines) + "\n"
