"""The Train page's cluster widgets (device choice "Cluster"): N worker processes on this
machine or a list of ``host:port`` workers, the backup interval, the data-sharding policy,
and, for a run, what the cluster is doing (workers, restarts, the commands to join).

``tfcore.training.cluster`` holds the rules; this module only draws them.
"""

from __future__ import annotations

import os
import re

import streamlit as st

from tfcore.errors import DeviceError
from tfcore.rundir import ACTIVE_STATES, QUEUED, RunRecord
from tfcore.training import (
    CLUSTER,
    CLUSTER_FILE,
    SHARD_POLICY,
    ClusterConfig,
    join_command,
)
from ui.common import kept, plain, t
from ui.training.settings import setting_input

MODES = ("local", "hosts")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cluster_section(batch_size: int) -> tuple[dict, int]:
    """The cluster widgets; returns the device config (with its ``cluster`` section, which
    ``jobs.start_run`` moves to ``run.json["cluster"]``) and the number of replicas."""
    mode = kept(st.radio, t("cluster.mode"), list(MODES), horizontal=True, allowed=list(MODES),
                key="train.cluster.mode", format_func=lambda m: t(f"cluster.mode.{m}"))
    backup = setting_input(st, "backup_every", t("cluster.backup_every"),
                           "train.cluster.backup_every", help=t("cluster.backup_help"))
    if mode == "local":
        workers = int(setting_input(st, "workers", t("cluster.workers"),
                                    "train.cluster.workers"))
        cluster = {"workers": workers, "backup_every": int(backup)}
        st.caption(t("cluster.local_help", workers=workers, cores=_cores(),
                     share=max(1, _cores() // workers)))
        replicas = workers
    else:
        text = kept(st.text_area, t("cluster.hosts"), value="", key="train.cluster.hosts",
                    placeholder="10.0.0.1:12345\n10.0.0.2:12345", help=t("cluster.hosts_help"))
        hosts = [h for h in re.split(r"[\s,]+", text or "") if h]
        cluster = {"hosts": hosts, "backup_every": int(backup)}
        replicas = max(1, len(hosts))
        try:
            ClusterConfig.from_dict(cluster)
        except DeviceError as exc:
            st.error(t(exc.key, **exc.params), icon=":material/error:")
        else:
            st.caption(t("cluster.hosts_commands"))
            st.code("\n".join(f"# {plain(h)}\n{join_command(CLUSTER_FILE, i)}"
                              for i, h in enumerate(hosts[1:], start=1)), language="bash")
    st.caption(t("cluster.shard", policy=SHARD_POLICY, batch=batch_size,
                 per_worker=max(1, batch_size // max(1, replicas))))
    return {"kind": CLUSTER, "cluster": cluster}, replicas


def cluster_panel(record: RunRecord) -> None:
    """A cluster run's line in the live panel: workers, sharding, what happened; for a
    queued run, which runs it waits for (``TFLAB_MAX_WORKERS``)."""
    extra = record.status.extra
    waiting = extra.get("waiting_for")
    if record.status.state == QUEUED and isinstance(waiting, list) and waiting:
        st.caption(t("cluster.waiting_for", runs=", ".join(plain(str(r)) for r in waiting)))
    workers = extra.get("cluster_workers")
    if not workers:
        return
    st.caption(t("cluster.run_line", workers=len(workers), policy=extra.get("shard_policy")
                 or SHARD_POLICY, addresses=", ".join(plain(str(w)) for w in workers)))
    for event in extra.get("events") or []:
        if isinstance(event, dict) and event.get("key") in ("cluster.event.restarted",
                                                            "cluster.event.gave_up"):
            st.info(t(event["key"], worker=event.get("worker", "?"),
                      step=event.get("step", "?"),
                      source=t(f"cluster.source.{event.get('source', 'backup')}")),
                    icon=":material/restart_alt:")
    request_hosts = workers if record.status.state in ACTIVE_STATES else []
    if request_hosts and not all(str(w).startswith("127.0.0.1:") for w in request_hosts):
        path = record.paths.root / CLUSTER_FILE
        st.caption(t("cluster.join_now", path=plain(str(path))))
        st.code("\n".join(join_command(path, i) for i in range(1, len(request_hosts))),
                language="bash")
