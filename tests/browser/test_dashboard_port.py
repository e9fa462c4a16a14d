"""The browser tests' server starter: a port taken between its choice and the server's
bind (here by another web server that answers every request) is detected from the
server's exit, and the server starts again on another port; its URL is never the other
server's."""

from __future__ import annotations

import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.browser import conftest
from tfcore.training.cluster import free_ports


class _Impostor(BaseHTTPRequestHandler):
    def do_GET(self) -> None:              # noqa: N802 - http.server's name
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"impostor")

    def log_message(self, *args: object) -> None:
        pass


def test_a_port_taken_before_the_server_binds_it_is_replaced(
        tmp_path: Path, session_workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    [taken] = free_ports(1)
    impostor = ThreadingHTTPServer(("127.0.0.1", taken), _Impostor)
    threading.Thread(target=impostor.serve_forever, daemon=True).start()
    handed = iter([[taken]])               # the first choice is the taken port
    monkeypatch.setattr(conftest, "free_ports", lambda n: next(handed, None) or free_ports(n))
    log = tmp_path / "streamlit.log"
    try:
        with conftest.dashboard(session_workspace, log) as url:
            assert not url.endswith(f":{taken}")
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=10) as resp:
                assert resp.read() == b"ok"
    finally:
        impostor.shutdown()
        impostor.server_close()
