"""The class setup (``make class``): one dashboard server process per core behind HAProxy.

Every session of a Streamlit server runs its script in one Python process, so on a class
server the students' page runs queue for that process's interpreter lock while the other
cores idle. This starts ``--processes`` servers (default: one per core,
``TFLAB_CLASS_PROCESSES``) on free loopback ports, each with ``TFLAB_PUBLIC_ADDRESS`` set to
the proxy's address so the teacher rules of a shared server hold in every process; runs
one page in each (the pages' imports, before any student waits for them); then starts
HAProxy (:mod:`ui.serve.proxy`) on ``--host``:``--port`` with cookie affinity, so each
browser stays with the process that holds its session. Everything the processes share
lives in the workspace: runs and their queue (a file lock), the TensorBoard, the lesson's
lead, presence and notes windows.

``backends`` starts only the server processes, on another host's address, for a proxy on
the first host (``--also HOST:PORT``; docs/classroom.md).

A process that dies is started again (its students reload their page); Ctrl-C or SIGTERM
stops the proxy and every process, and leaves none behind (a process that outlives
:data:`STOP_S` seconds is killed). Training runs are not stopped: each trains in its own
process and is found again at the next start, as with ``make run``.

    python -m ui.serve class [--host 0.0.0.0] [--port 8501] [--processes N]
        [--first-port P] [--also HOST:PORT ...]
    python -m ui.serve backends --host ADDRESS --first-port P [--processes N]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tfcore.settings import class_processes
from ui.serve.proxy import INSTALL_HINT, find_haproxy, haproxy_config
from ui.serve.warmup import run_page

ROOT = Path(__file__).resolve().parents[2]
START_S = 180.0              # a server process or the proxy must answer within this
STOP_S = 20.0                # seconds a process may take to stop before it is killed
WARM_PAGES = ("", "train")   # run once in each process before students arrive
RESTARTS = 5                 # a process that keeps dying is given up after this many
PORT_TAKEN = "is not available"


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the launcher dies, however it dies (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _answers(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return reply.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _local(host: str) -> str:
    """Where this machine reaches a server listening on ``host``."""
    return "127.0.0.1" if host in ("", "0.0.0.0") else "::1" if host == "::" else host


def _url(host: str, port: int, scheme: str = "http") -> str:
    host = _local(host)
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


COOKIE_SECRET = "STREAMLIT_SERVER_COOKIE_SECRET"     # Streamlit's own variable


def cookie_secret() -> str:
    """The cookie secret every process signs its cookies with (Streamlit's XSRF cookie,
    the teacher's sign-in): the one in the environment, so that the processes of every
    host share it (a browser the proxy moves to another host after a failed health check
    keeps working), else a new one for this group's processes."""
    return os.environ.get("STREAMLIT_SERVER_COOKIE_SECRET") or secrets.token_hex(32)


@dataclass
class Backend:
    """One dashboard server process."""

    name: str
    host: str
    port: int
    proc: subprocess.Popen | None = None
    log: Path | None = None
    restarts: int = 0

    @property
    def health_url(self) -> str:
        return _url(self.host, self.port) + "/_stcore/health"

    @property
    def stream_url(self) -> str:
        return _url(self.host, self.port, "ws") + "/_stcore/stream"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
                "--server.address", self.host, "--server.port", str(self.port),
                "--server.headless", "true", "--browser.serverAddress", self.host]


@dataclass
class ClassServer:
    """The proxy and its server processes; :meth:`start`, then :meth:`serve` until
    stopped."""

    host: str = "0.0.0.0"
    port: int = 8501
    processes: int = 1
    backend_host: str = "127.0.0.1"
    first_port: int | None = None
    also: tuple[tuple[str, int], ...] = ()        # servers started on other hosts
    proxy: bool = True
    public_address: str | None = None
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="tflab-class-")))
    backends: list[Backend] = field(default_factory=list)
    haproxy: subprocess.Popen | None = None
    secret: str = field(default_factory=lambda: cookie_secret())
    stopping: bool = False

    def say(self, text: str) -> None:
        print(text, flush=True)

    # ------------------------------------------------------------------ start

    def start(self) -> None:
        """Start the processes, warm them, then the proxy. Raises RuntimeError (located)
        when one cannot start; everything started so far is stopped."""
        haproxy = find_haproxy() if self.proxy else None
        if self.proxy and haproxy is None:
            raise RuntimeError(f"HAProxy is not installed: {INSTALL_HINT}")
        try:
            for i in range(self.processes):
                port = self.first_port + i if self.first_port else free_port(self.backend_host)
                backend = Backend(f"s{i}", self.backend_host, port,
                                  log=self.folder / f"server-{i}.log")
                self.backends.append(backend)
                self._launch(backend)
            for backend in self.backends:
                self._wait_healthy(backend)
                self._warm(backend)
            if self.proxy:
                self._start_proxy(haproxy)
            self._check_stop()
        except BaseException:
            self.stop()
            raise

    def _env(self) -> dict:
        public = self.public_address
        if public is None:
            public = self.host if self.proxy else self.backend_host
        return dict(os.environ, TFLAB_PUBLIC_ADDRESS=public, PYTHONUNBUFFERED="1",
                    **{COOKIE_SECRET: self.secret})       # one for all processes

    def _launch(self, backend: Backend) -> None:
        with open(backend.log, "ab") as sink:
            backend.proc = subprocess.Popen(
                backend.command(), cwd=ROOT, env=self._env(),
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent)

    def _tail(self, log: Path | None, lines: int = 8) -> str:
        try:
            return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
        except (OSError, AttributeError):
            return ""

    def _check_stop(self) -> None:
        if self.stopping:              # Ctrl-C or SIGTERM while starting
            raise RuntimeError("stopped while starting")

    def _wait_healthy(self, backend: Backend) -> None:
        deadline = time.monotonic() + START_S
        while not _answers(backend.health_url):
            self._check_stop()
            proc = backend.proc
            if proc is not None and proc.poll() is not None:
                text = self._tail(backend.log)
                if PORT_TAKEN in text and not self.first_port:
                    backend.port = free_port(self.backend_host)     # lost a race: again
                    self._launch(backend)
                    continue
                raise RuntimeError(f"server process {backend.name} "
                                   f"({backend.host}:{backend.port}) exited:\n{text}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"server process {backend.name} did not answer "
                                   f"{backend.health_url} within {START_S:.0f} s")
            time.sleep(0.2)

    def _warm(self, backend: Backend) -> None:
        for page in WARM_PAGES:
            self._check_stop()
            try:
                seconds = run_page(backend.stream_url, page, timeout=START_S)
            except (OSError, ConnectionError, TimeoutError) as exc:
                self.say(f"warm-up of {backend.name} on page {page or 'home'!r} failed: {exc}")
                return
            self.say(f"{backend.name} {backend.host}:{backend.port} pid "
                     f"{backend.proc.pid if backend.proc else '-'}: page "
                     f"{page or 'home'} ran in {seconds:.1f} s")

    def _servers(self) -> list[tuple[str, str, int]]:
        rows = [(b.name, _local(b.host), b.port) for b in self.backends]
        return rows + [(f"h{i}", host, port) for i, (host, port) in enumerate(self.also)]

    def _start_proxy(self, haproxy: str) -> None:
        config = self.folder / "haproxy.cfg"
        config.write_text(haproxy_config(self.host, self.port, self._servers()))
        check = subprocess.run([haproxy, "-c", "-q", "-f", str(config)],
                               capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"HAProxy refused {config}:\n{check.stdout}{check.stderr}")
        log = self.folder / "haproxy.log"
        with open(log, "ab") as sink:
            self.haproxy = subprocess.Popen([haproxy, "-db", "-f", str(config)], cwd=self.folder,
                                            stdin=subprocess.DEVNULL, stdout=sink,
                                            stderr=subprocess.STDOUT,
                                            preexec_fn=_die_with_parent)
        deadline = time.monotonic() + START_S
        while not _answers(_url(self.host, self.port) + "/_stcore/health"):
            if self.haproxy.poll() is not None:
                raise RuntimeError(f"HAProxy exited:\n{self._tail(log)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"HAProxy did not answer on {self.host}:{self.port}")
            time.sleep(0.1)

    # ------------------------------------------------------------------ run, stop

    def address(self) -> str:
        """What a browser opens."""
        if self.proxy:
            return _url(self.host, self.port) + "/"
        return ", ".join(_url(b.host, b.port) + "/" for b in self.backends)

    def serve(self, poll: float = 0.5) -> int:
        """Watch the processes until stopped: a server process that dies is started again
        (at most :data:`RESTARTS` times each); the proxy's exit ends the class. Returns
        the exit status."""
        while not self.stopping:
            if self.haproxy is not None and self.haproxy.poll() is not None:
                self.say(f"HAProxy exited with {self.haproxy.returncode}")
                return 1
            for backend in self.backends:
                if backend.proc is not None and backend.proc.poll() is not None \
                        and not self.stopping:
                    if backend.restarts >= RESTARTS:
                        self.say(f"{backend.name} keeps exiting; see {backend.log}")
                        return 1
                    backend.restarts += 1
                    self.say(f"{backend.name} exited with {backend.proc.returncode}; "
                             "starting it again")
                    self._launch(backend)
            time.sleep(poll)
        return 0

    def stop(self) -> None:
        """Stop the proxy, then every server process; kill what outlives :data:`STOP_S`."""
        self.stopping = True
        procs = [p for p in [self.haproxy, *(b.proc for b in self.backends)] if p is not None]
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + STOP_S
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r}")
    return host.strip("[]"), int(port)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a whole number of at least 1: {text!r}")
    return int(text)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise argparse.ArgumentTypeError(f"not a port (1-65535): {text!r}")
    return int(text)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m ui.serve", description=__doc__.split("\n\n")[0])
    sub = top.add_subparsers(dest="mode", required=True)
    cls = sub.add_parser("class", help="server processes behind HAProxy on one address")
    cls.add_argument("--host", default="0.0.0.0",
                     help="the address the proxy listens on (default 0.0.0.0: the network)")
    cls.add_argument("--port", type=_port, default=8501, help="the proxy's port (8501)")
    cls.add_argument("--first-port", type=_port, default=None,
                     help="the first server process's port (default: free ports)")
    cls.add_argument("--also", type=_host_port, action="append", default=[],
                     metavar="HOST:PORT", help="a server process started on another host "
                     "(python -m ui.serve backends there); repeat for each")
    more = sub.add_parser("backends", help="only server processes, for a proxy elsewhere")
    more.add_argument("--host", required=True, help="this host's address the proxy reaches")
    more.add_argument("--first-port", type=_port, required=True,
                      help="the first process's port; the next ones follow")
    more.add_argument("--public-address", default="0.0.0.0",
                      help="the proxy's address, for the teacher rules (default: shared)")
    for each in (cls, more):
        each.add_argument("--processes", type=_positive, default=None,
                          help="server processes (default: one per core, "
                          "TFLAB_CLASS_PROCESSES)")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    processes = args.processes or class_processes()
    if args.mode == "class":
        server = ClassServer(host=args.host, port=args.port, processes=processes,
                             first_port=args.first_port, also=tuple(args.also))
    else:
        server = ClassServer(host=args.host, processes=processes, backend_host=args.host,
                             first_port=args.first_port, proxy=False,
                             public_address=args.public_address)

    def _stop(signum, frame):            # noqa: ARG001 - a signal handler's signature
        server.stopping = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        server.start()
    except (RuntimeError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server.say(f"TF Lab class: {server.address()} ({processes} server processes; "
               f"logs in {server.folder})")
    server.say("READY")
    try:
        return server.serve()
    finally:
        server.stop()
        server.say("stopped")
