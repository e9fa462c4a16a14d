"""``worker``: join a cluster run from another host (MultiWorkerMirroredStrategy).

The Train page (or ``train --device cluster --hosts ...``) writes the run's cluster file,
``<run dir>/cluster.json``; copy it to each host and start worker ``i`` there. The chief
(worker 0) is started by the job manager on the dashboard's machine.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tfcore.cli.inputs import shown
from tfcore.cli.vocabulary import command
from tfcore.errors import RunError


def _worker(args: argparse.Namespace) -> int:
    from tfcore.training import worker_main

    if not args.join.is_file():
        raise RunError(key="cli.err.no_cluster_file", params={"path": shown(str(args.join))})
    if args.index < 1:
        raise RunError(key="cli.err.worker_index", params={"index": args.index})
    return worker_main(["--join", str(args.join), "--index", str(args.index)])


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "worker", "join a cluster run as worker I (run on each other host)",
                ["python -m tfcore worker --join cluster.json --index 1"])
    p.add_argument("--join", type=Path, required=True, metavar="CLUSTER_FILE",
                   help="the run's cluster.json, copied from the chief's run directory")
    p.add_argument("--index", type=int, required=True, metavar="I",
                   help="this worker's place in the cluster file's worker list (1, 2, ...)")
    p.set_defaults(func=_worker)
