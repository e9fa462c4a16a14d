"""Multi-worker runs: the cluster settings of a run, its cluster file, free loopback ports
and each local process's share of the CPU cores.

A cluster run trains with ``tf.distribute.MultiWorkerMirroredStrategy`` configured by
``TF_CONFIG``. Either ``workers`` local processes on this machine (ports chosen here, on
127.0.0.1) or a list of ``hosts`` (``host:port``; the first is the chief and runs on this
machine, the others run ``python -m tfcore worker --join <cluster file> --index i``).
The run directory's ``cluster.json`` (the *cluster file*) holds the cluster spec and the
run request, so a remote worker needs nothing else. Nothing here imports TensorFlow.
"""

from __future__ import annotations

import os
import re
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from tfcore import settings
from tfcore.errors import DeviceError
from tfcore.training.registry import SETTINGS

CLUSTER = "cluster"
CLUSTER_FILE = "cluster.json"
CLUSTER_DIR = "cluster"          # per-worker scratch (non-chief checkpoints, exit codes)
BACKUP_DIR = "backup"            # the chief's BackupAndRestore / backup checkpoints
SHARD_POLICY = "DATA"            # tf.data AutoShardPolicy for in-memory arrays
MAX_WORKERS_PER_RUN = SETTINGS["workers"].high
MAX_RESTARTS = 3
_HOST = re.compile(r"^(?P<host>[A-Za-z0-9_.\-]{1,253}|\[[0-9A-Fa-f:]{2,45}\]):(?P<port>\d{1,5})$")


@dataclass(frozen=True)
class ClusterConfig:
    """How a cluster run is laid out (``run.json["cluster"]``).

    Attributes:
        workers: local worker processes (2..16) when ``hosts`` is empty.
        hosts: ``host:port`` of every worker, the chief first (this machine).
        backup_every: steps between fault-tolerance backups (BackupAndRestore).
        max_restarts: how often the job manager restarts a local cluster whose worker died.
    """

    workers: int = 2
    hosts: tuple[str, ...] = ()
    backup_every: int = 20
    max_restarts: int = MAX_RESTARTS

    @property
    def size(self) -> int:
        return len(self.hosts) if self.hosts else self.workers

    @property
    def local(self) -> bool:
        """All workers are processes the job manager starts on this machine."""
        return not self.hosts

    def to_dict(self) -> dict:
        return {"workers": self.workers, "hosts": list(self.hosts),
                "backup_every": self.backup_every, "max_restarts": self.max_restarts}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "ClusterConfig":
        """Build and check; raises DeviceError naming the bad value."""
        data = dict(data or {})
        hosts = data.get("hosts") or ()
        if isinstance(hosts, str):
            hosts = [h for h in re.split(r"[\s,]+", hosts) if h]
        try:
            config = cls(workers=int(data.get("workers", 2) or 0),
                         hosts=tuple(str(h).strip() for h in hosts),
                         backup_every=int(data.get("backup_every", 20)),
                         max_restarts=int(data.get("max_restarts", MAX_RESTARTS)))
        except (TypeError, ValueError) as exc:
            raise DeviceError(key="cluster.err.settings", params={"message": str(exc)}) from exc
        config.check()
        return config

    def check(self) -> None:
        if self.hosts:
            for host in self.hosts:
                match = _HOST.match(host)
                if not match or not 1 <= int(match["port"]) <= 65535:
                    raise DeviceError(key="cluster.err.host", params={"host": host})
            if len(set(self.hosts)) != len(self.hosts):
                raise DeviceError(key="cluster.err.host_twice")
            if not 2 <= len(self.hosts) <= MAX_WORKERS_PER_RUN:
                raise DeviceError(key="cluster.err.hosts", params={
                    "low": 2, "high": MAX_WORKERS_PER_RUN, "value": len(self.hosts)})
        elif not 2 <= self.workers <= MAX_WORKERS_PER_RUN:
            raise DeviceError(key="cluster.err.workers", params={
                "low": 2, "high": MAX_WORKERS_PER_RUN, "value": self.workers})
        backup = SETTINGS["backup_every"]
        if not backup.accepts(self.backup_every):
            raise DeviceError(key="cluster.err.backup", params={
                "low": backup.low, "high": backup.high, "value": self.backup_every})
        if not 0 <= self.max_restarts <= 100:
            raise DeviceError(key="cluster.err.restarts",
                              params={"low": 0, "high": 100, "value": self.max_restarts})


def is_cluster(request: Mapping[str, Any] | None) -> bool:
    """Whether a run request (``run.json``) asks for a multi-worker run."""
    device = (request or {}).get("device") or {}
    return isinstance(device, Mapping) and device.get("kind") == CLUSTER


def cluster_section_moved(request: Mapping[str, Any]) -> Mapping[str, Any]:
    """A page may send the cluster layout inside the device choice; ``run.json`` keeps it
    as its own ``cluster`` section."""
    device = request.get("device")
    if isinstance(device, Mapping) and "cluster" in device:
        device = dict(device)
        return {**request, "device": device, "cluster": device.pop("cluster")}
    return request


EPHEMERAL_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
PORT_FLOOR = 10000                  # below: the ports of well-known services
PORT_HOLD_S = 600.0                 # a reservation outlives a worker's start (TensorFlow's import)


def ephemeral_range(path: Path = EPHEMERAL_FILE) -> tuple[int, int]:
    """The ports the kernel hands out for port 0 and outgoing connections (Linux's default
    where the file cannot be read)."""
    try:
        low, high = (int(v) for v in path.read_text(encoding="ascii").split()[:2])
    except (OSError, ValueError):
        return 32768, 60999
    return low, high


def _bindable(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _reserve(folder: Path, port: int, now: float) -> bool:
    """Claim ``port`` for :data:`PORT_HOLD_S` seconds (caller holds the folder's lock)."""
    mark = folder / str(port)
    try:
        if now - mark.stat().st_mtime < PORT_HOLD_S:
            return False
    except FileNotFoundError:
        pass
    mark.write_text(str(os.getpid()), encoding="ascii")
    os.utime(mark, (now, now))
    return True


def free_ports(count: int, host: str = "127.0.0.1", folder: Path | None = None,
               ephemeral: tuple[int, int] | None = None) -> list[int]:
    """``count`` distinct free TCP ports on ``host`` for workers that bind them later.

    They lie outside the kernel's ephemeral range, so no ``bind(port 0)`` or outgoing
    connection can take one before its worker binds it, and each is reserved for a while
    in ``folder`` (one machine-wide folder), so two launches never pick the same port."""
    import fcntl
    import random

    low, high = ephemeral or ephemeral_range()
    pool = [p for p in range(PORT_FLOOR, 65536) if not low <= p <= high]
    random.shuffle(pool)
    folder = folder or Path(tempfile.gettempdir()) / "tflab-ports"
    folder.mkdir(parents=True, exist_ok=True)
    chosen: list[int] = []
    with open(folder / ".lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        now = time.time()
        for port in pool:
            if _bindable(host, port) and _reserve(folder, port, now):
                chosen.append(port)
                if len(chosen) == count:
                    return chosen
    raise DeviceError(key="cluster.err.no_ports",
                      params={"count": count, "low": low, "high": high, "host": host})


def worker_addresses(config: ClusterConfig) -> list[str]:
    """The ``cluster["worker"]`` list: the hosts as given, or fresh loopback ports."""
    if config.hosts:
        return list(config.hosts)
    return [f"127.0.0.1:{p}" for p in free_ports(config.workers)]


def tf_config(addresses: Sequence[str], index: int) -> dict:
    """The ``TF_CONFIG`` of worker ``index`` (worker 0 is the chief)."""
    return {"cluster": {"worker": list(addresses)}, "task": {"type": "worker", "index": index}}


def cluster_file_body(run_id: str, request: Mapping[str, Any], addresses: Sequence[str],
                      attempt: int) -> dict:
    """What ``cluster.json`` holds: enough for a remote worker to join the run."""
    body = {k: v for k, v in request.items() if k not in ("created", "versions")}
    return {"format": 1, "run_id": run_id, "workers": list(addresses), "attempt": attempt,
            "request": body}


def read_cluster_file(path: Path) -> dict:
    """A cluster file's body, checked; raises DeviceError when it is not one."""
    from tfcore.jsonio import read_json

    try:
        body = read_json(Path(path))
    except (OSError, ValueError) as exc:
        raise DeviceError(key="cluster.err.file_read",
                          params={"path": str(path), "message": str(exc)}) from exc
    ok = (isinstance(body, dict) and body.get("format") == 1
          and isinstance(body.get("workers"), list) and len(body["workers"]) >= 2
          and isinstance(body.get("request"), dict) and isinstance(body.get("run_id"), str))
    if not ok:
        raise DeviceError(key="cluster.err.file", params={"path": str(path)})
    return body


def join_command(cluster_file: Path | str, index: int) -> str:
    """The exact command that starts worker ``index`` on its host."""
    return f"python -m tfcore worker --join {cluster_file} --index {index}"


def cpu_shares(cpus: Sequence[int], parts: int) -> list[list[int]]:
    """Split a CPU set into ``parts`` disjoint, nearly equal sets (round robin when there
    are fewer CPUs than parts: then some parts share a CPU)."""
    cpus = sorted(cpus)
    if not cpus or parts < 1:
        return [list(cpus) for _ in range(max(parts, 0))]
    if len(cpus) < parts:
        return [[cpus[i % len(cpus)]] for i in range(parts)]
    size, extra = divmod(len(cpus), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(cpus[start:end])
        start = end
    return out


def available_cpus() -> list[int]:
    """The CPUs this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return list(range(os.cpu_count() or 1))


def cpu_env(cpus: Sequence[int]) -> dict:
    """Environment that limits TensorFlow's thread pools to ``len(cpus)`` threads (read
    when TensorFlow initializes) and names the CPU set (``TFLAB_CPUS``)."""
    n = max(1, len(cpus))
    return {settings.CPUS.name: ",".join(map(str, cpus)), "TF_NUM_INTRAOP_THREADS": str(n),
            "TF_NUM_INTEROP_THREADS": str(min(2, n)), "OMP_NUM_THREADS": str(n)}


def pin(pid: int, cpus: Sequence[int]) -> bool:
    """Pin a just-started process to ``cpus`` (before it has imported TensorFlow and
    started its thread pools); False where affinity is not supported."""
    if not cpus or not hasattr(os, "sched_setaffinity"):
        return False
    try:
        os.sched_setaffinity(pid, set(cpus))
        return True
    except OSError:
        return False
