"""The classroom bench's setup: a seeded workspace with one live run, and a loopback
Streamlit server (started, health-checked, stopped with its process group)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
HOST = "127.0.0.1"


def prepare_workspace(runs_root: Path, seed_runs: int, pace: float, epochs: int,
                      live: str) -> str:
    """Seed ``seed_runs`` finished runs and start one paced live run (``live`` worker);
    return its id (empty for ``live`` synthetic: :func:`feed` writes that run).

    Runs in a child process (it imports TensorFlow), so the bench itself stays light."""
    from tfcore.model import get_preset
    from tfcore.rundir import FINISHED, RunWriter
    from tfcore.training import TrainConfig, default_loss_and_metrics, jobs

    spec = get_preset("mlp").to_dict()
    loss, metrics = default_loss_and_metrics("classification", 10)
    for index in range(seed_runs):
        writer = RunWriter.create(runs_root, {"name": f"seed {index:02d}", "spec": spec,
                                              "dataset": {"name": "digits28"},
                                              "training": {"epochs": 1, "loss": loss,
                                                           "metrics": list(metrics)},
                                              "device": {"kind": "cpu"}})
        with writer.metrics_writer() as out:
            for step in range(1, 201):
                out.append({"step": step, "epoch": 1, "split": "train",
                            "loss": 2.3 / step ** 0.3, "time": time.time()})
        writer.set_status(state=FINISHED, step=200, epoch=1, total_steps=200)
    training = {"epochs": epochs, "batch_size": 32, "loss": loss, "metrics": list(metrics),
                "ckpt_every": 500, "validate_every": epochs}
    names = {f.name for f in TrainConfig.__dataclass_fields__.values()}
    if "steps_per_second" in names and pace > 0:
        training["steps_per_second"] = pace
    request = {"name": "live", "spec": spec, "dataset": {"name": "digits28"},
               "training": training, "device": {"kind": "cpu"}}
    return jobs.start_run(runs_root, request) if live == "worker" else ""


def feed(runs_root: Path, pace: float, seconds: float) -> None:
    """``--live synthetic``: play a worker without TensorFlow, writing the run directory
    (status heartbeat, one train record per step, a val record per epoch) at ``pace``
    steps a second until a stop request or ``seconds``; prints the run id first."""
    from tfcore.rundir import FINISHED, RUNNING, STOPPED, RunWriter
    from tfcore.model import get_preset

    per_epoch, epochs = 40, 10_000
    writer = RunWriter.create(runs_root, {"name": "live", "spec": get_preset("mlp").to_dict(),
                                          "dataset": {"name": "digits28"},
                                          "training": {"epochs": epochs}, "device": {"kind": "cpu"}})
    writer.set_status(state=RUNNING, pid=os.getpid(), total_steps=per_epoch * epochs,
                      epochs=epochs, replicas=1, batch_size=32)
    print(writer.paths.run_id, flush=True)
    start = time.monotonic()
    step, beat = 0, 0.0
    with writer.metrics_writer() as out:
        while time.monotonic() - start < seconds and not writer.stop_requested():
            step += 1
            epoch = 1 + (step - 1) // per_epoch
            now = time.monotonic()
            out.append({"step": step, "epoch": epoch, "split": "train", "time": time.time(),
                        "elapsed": now - start, "loss": 2.3 / step ** 0.3,
                        "sparse_categorical_accuracy": 1 - 0.9 / step ** 0.2,
                        "samples_per_sec": 32 * pace})
            if step % per_epoch == 0:
                out.append({"step": step, "epoch": epoch, "split": "val", "time": time.time(),
                            "loss": 2.4 / step ** 0.3, "sparse_categorical_accuracy": 0.5})
            if now - beat >= 1.0:
                beat = now
                writer.set_status(step=step, epoch=epoch, samples_per_sec=32 * pace)
            time.sleep(max(0.0, start + step / pace - time.monotonic()))
    writer.set_status(state=STOPPED if writer.stop_requested() else FINISHED, step=step)


def run_status(runs_root: Path, run_id: str) -> dict:
    try:
        return json.loads((runs_root / run_id / "status.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def stop_worker(runs_root: Path, run_id: str, wait: float = 20.0) -> None:
    """Ask the live run to stop; kill its process group if it has not ended in ``wait``."""
    pid = run_status(runs_root, run_id).get("pid")
    (runs_root / run_id / "stop.request").write_text("bench\n", encoding="utf-8")
    deadline = time.monotonic() + wait
    while pid and time.monotonic() < deadline and _alive(pid):
        time.sleep(0.2)
    if pid and _alive(pid):
        try:
            os.killpg(int(pid), signal.SIGKILL)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(int(pid), 0)
    except OSError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and ") Z" in stat.read_text(errors="replace"))


# ---------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start_server(workspace: Path, port: int, log: Path) -> subprocess.Popen:
    env = dict(os.environ, TFLAB_WORKSPACE=str(workspace), PYTHONPATH=str(ROOT))
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", HOST,
             "--server.port", str(port), "--server.headless", "true",
             "--browser.gatherUsageStats", "false"],
            cwd=str(ROOT), env=env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)


def wait_healthy(port: int, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"streamlit did not answer on port {port} within {timeout:.0f} s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


# ---------------------------------------------------------------- one browser-less session


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def start_class(workspace: Path, port: int, processes: int, log: Path) -> subprocess.Popen:
    """``python -m ui.serve class`` on 127.0.0.1:``port``; returns once it printed READY
    (its processes warmed, HAProxy answering)."""
    env = dict(os.environ, TFLAB_WORKSPACE=str(workspace), PYTHONPATH=str(ROOT))
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ui.serve", "class", "--host", HOST, "--port", str(port),
             "--processes", str(processes)],
            cwd=str(ROOT), env=env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    while "READY" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_server(proc)
            raise SystemExit("the class setup did not start:\n"
                             + log.read_text(errors="replace")[-3000:])
        time.sleep(0.2)
    return proc
