"""The class setup: several dashboard server processes behind one real reverse proxy
(HAProxy), so a lecture hall's sessions use every core (``make class``; docs/classroom.md).

Code outside this package imports only the names below (``__all__``)."""

from __future__ import annotations

from ui.serve.classroom import Backend, ClassServer, main
from ui.serve.proxy import COOKIE, find_haproxy, haproxy_config
from ui.serve.warmup import run_page

__all__ = ["COOKIE", "Backend", "ClassServer", "find_haproxy", "haproxy_config", "main",
           "run_page"]
