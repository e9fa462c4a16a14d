"""Every ``TFLAB_*`` environment variable, declared and read here only (a test checks).

Each variable is one :class:`Setting` (name, default, parser, what it does); the typed
accessors below read the environment at call time, so a test can ``monkeypatch.setenv``
and a server sees a change in a new worker. A value that does not parse raises
:class:`SettingError` naming the variable, the value and what is allowed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfcore.errors import TFLabError
from tfcore.messages import Text

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class SettingError(TFLabError):
    """A ``TFLAB_*`` variable holds a value that cannot be used."""

    default_key = "settings.invalid"


@dataclass(frozen=True)
class Setting:
    """One environment variable: its name, its default, how it is parsed, what it does."""

    name: str
    default: Any
    parse: Callable[[str], Any]
    allowed: Text
    help: str

    def get(self) -> Any:
        """The current value: the environment's, parsed, else the default."""
        raw = os.environ.get(self.name)
        if raw is None or raw.strip() == "":
            return self.default
        try:
            return self.parse(raw.strip())
        except ValueError:
            raise SettingError(params={"name": self.name, "value": raw,
                                       "allowed": self.allowed}) from None


def _flag(text: str) -> bool:
    if text.lower() in _TRUE + _FALSE:
        return text.lower() in _TRUE
    raise ValueError(text)


def _at_least(low: float, kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if not value >= low:            # also refuses NaN
            raise ValueError(text)
        return value
    return parse


def _host_port(text: str) -> str:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(text)
    return text


_FLAG = Text("settings.allowed.flag")
_INTEGER = Text("settings.allowed.int", {"low": 1})

WORKSPACE = Setting("TFLAB_WORKSPACE", None, str, Text("settings.allowed.path"),
                    "the workspace folder (runs, saved models, uploads); default ./workspace")
TRUSTED_CODE = Setting("TFLAB_TRUSTED_CODE", False, _flag, _FLAG,
                       "1 lets user-written Python run (Custom code page, AutoGraph lab)")
WARM_WORKER = Setting("TFLAB_WARM_WORKER", True, _flag, _FLAG,
                      "0 turns off the warm worker (TensorFlow imported before Start)")
WARM_IDLE = Setting("TFLAB_WARM_IDLE", 7200.0, _at_least(1, float),
                    Text("settings.allowed.seconds", {"low": 1}),
                    "seconds an idle warm worker waits for a job before it exits")
MAX_WORKERS = Setting("TFLAB_MAX_WORKERS", 1, _at_least(1, int), _INTEGER,
                      "how many runs train at once, each on its own CPU set")
NET_PROBE = Setting("TFLAB_NET_PROBE", "storage.googleapis.com:443", _host_port,
                    Text("settings.allowed.host_port"),
                    "where TFDS downloads check that the network is reachable")
MAX_LAYERS = Setting("TFLAB_MAX_LAYERS", 2_000, _at_least(1, int), _INTEGER,
                     "the most layer entries a model spec may have")
MAX_EXAMPLE_ELEMENTS = Setting("TFLAB_MAX_EXAMPLE_ELEMENTS", 2**24, _at_least(1, int),
                               _INTEGER,
                               "the most numbers per example in an input or a layer output")
PARAM_LIMIT = Setting("TFLAB_PARAM_LIMIT", 50_000_000, _at_least(1, int),
                      _INTEGER, "the most parameters a model may have")
MAX_MODEL_MB = Setting("TFLAB_MAX_MODEL_MB", 2048, _at_least(1, int), _INTEGER,
                       "the most megabytes a model may need: its weights plus one example's "
                       "output of every layer, counted as float32")
MAX_DECODED_MB = Setting("TFLAB_MAX_DECODED_MB", 384, _at_least(1, int), _INTEGER,
                         "the most megabytes one image zip's images may need decoded "
                         "(float32), counted from its directory before any is read")
MAX_CSV_COLUMNS = Setting("TFLAB_MAX_CSV_COLUMNS", 2_000, _at_least(1, int), _INTEGER,
                          "the most columns an uploaded CSV may have (its first line)")
MAX_CSV_CELLS = Setting("TFLAB_MAX_CSV_CELLS", 20_000_000, _at_least(1, int), _INTEGER,
                        "the most cells (rows x columns) an uploaded CSV may have, counted "
                        "before it is parsed")
CPUS = Setting("TFLAB_CPUS", None, str, Text("settings.allowed.cpus"),
               "set by the server for each worker of a run: the CPU set it runs on")

PUBLIC_ADDRESS = Setting("TFLAB_PUBLIC_ADDRESS", None, str, Text("settings.allowed.address"),
                         "set by the class setup for each server process behind its proxy: "
                         "the address the proxy listens on, which decides the teacher rules "
                         "(a process itself listens on 127.0.0.1)")
CLASS_PROCESSES = Setting("TFLAB_CLASS_PROCESSES", None, _at_least(1, int), _INTEGER,
                          "how many server processes the class setup starts (default: one "
                          "per core)")

LANG = Setting("TFLAB_LANG", "en", str, Text("settings.allowed.lang"),
               "the language of the command line's messages (en or zh; default en)")

SETTINGS = {s.name: s for s in (WORKSPACE, TRUSTED_CODE, WARM_WORKER, WARM_IDLE, MAX_WORKERS,
                                NET_PROBE, MAX_LAYERS, MAX_EXAMPLE_ELEMENTS, PARAM_LIMIT,
                                MAX_MODEL_MB, MAX_DECODED_MB, MAX_CSV_COLUMNS, MAX_CSV_CELLS,
                                CPUS, LANG, PUBLIC_ADDRESS, CLASS_PROCESSES)}


def workspace_dir() -> Path | None:
    """The folder named by ``TFLAB_WORKSPACE`` (``~`` expanded), or None."""
    value = WORKSPACE.get()
    return Path(value).expanduser() if value else None


def cli_lang() -> str:
    """The language of command-line output: ``TFLAB_LANG`` when it is en or zh, else en."""
    lang = LANG.get()
    return lang if lang in ("en", "zh") else "en"


def trusted_code() -> bool:
    """Whether user-written code may run (``TFLAB_TRUSTED_CODE=1``)."""
    return TRUSTED_CODE.get()


def warm_worker() -> bool:
    """Whether warm workers may be used (``TFLAB_WARM_WORKER``, default on)."""
    return WARM_WORKER.get()


def warm_idle_seconds() -> float:
    """How long an idle warm worker waits for a job (``TFLAB_WARM_IDLE``)."""
    return WARM_IDLE.get()


def max_workers() -> int:
    """How many runs may train at once (``TFLAB_MAX_WORKERS``, default 1)."""
    return MAX_WORKERS.get()


def net_probe() -> str:
    """The ``host:port`` whose TLS handshake says the network is reachable."""
    return NET_PROBE.get()


def max_layers() -> int:
    """The most layer entries a spec may have (``TFLAB_MAX_LAYERS``)."""
    return MAX_LAYERS.get()


def max_example_elements() -> int:
    """The most numbers per example (``TFLAB_MAX_EXAMPLE_ELEMENTS``)."""
    return MAX_EXAMPLE_ELEMENTS.get()


def param_limit() -> int:
    """The most parameters a model may have (``TFLAB_PARAM_LIMIT``)."""
    return PARAM_LIMIT.get()


def max_model_mb() -> int:
    """The most megabytes a model may need (``TFLAB_MAX_MODEL_MB``)."""
    return MAX_MODEL_MB.get()


def public_address() -> str | None:
    """The address the class setup's proxy listens on (``TFLAB_PUBLIC_ADDRESS``), None for
    a server that is reached directly."""
    return PUBLIC_ADDRESS.get()


def class_processes() -> int:
    """How many server processes the class setup starts (``TFLAB_CLASS_PROCESSES``,
    default one per core)."""
    return CLASS_PROCESSES.get() or (os.cpu_count() or 1)


@contextmanager
def overridden(setting: Setting, value: str) -> Iterator[None]:
    """Set ``setting`` in this process's environment (child processes inherit it) while the
    block runs, then put back what was there."""
    before = os.environ.get(setting.name)
    os.environ[setting.name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(setting.name, None)
        else:
            os.environ[setting.name] = before
