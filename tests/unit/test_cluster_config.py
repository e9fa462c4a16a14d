"""Issue 16 without TensorFlow: cluster settings and their located errors, the cluster file,
TF_CONFIG, free ports, CPU shares and slots, the CLI flags (exit 2 before any run exists)
and the ``worker`` subcommand's checks."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tfcore.cli import main
from tfcore.errors import DeviceError
from tfcore.training import ClusterConfig, DeviceConfig, jobs, join_command
from tfcore.training.cluster import (
    cluster_file_body,
    cpu_env,
    cpu_shares,
    free_ports,
    read_cluster_file,
    tf_config,
)
from tfcore.training.cluster_jobs import cpu_slot


def test_cluster_settings_are_checked_and_echo_the_bad_value() -> None:
    assert ClusterConfig.from_dict(None).size == 2
    hosts = ClusterConfig.from_dict({"hosts": "10.0.0.1:2222, 10.0.0.2:2222\nbox:1"})
    assert hosts.hosts == ("10.0.0.1:2222", "10.0.0.2:2222", "box:1") and hosts.size == 3
    assert not hosts.local and ClusterConfig().local
    cases = [({"workers": 1}, "cluster.err.workers", "workers=1"),
             ({"workers": 17}, "cluster.err.workers", "workers=17"),
             ({"hosts": ["a:1", "b"]}, "cluster.err.host", "'b'"),
             ({"hosts": ["a:1", "a:99999"]}, "cluster.err.host", "'a:99999'"),
             ({"hosts": ["a:1", "a:1"]}, "cluster.err.host_twice", "twice"),
             ({"hosts": ["a:1"]}, "cluster.err.hosts", "1 hosts"),
             ({"backup_every": 0}, "cluster.err.backup", "0"),
             ({"workers": "two"}, "cluster.err.settings", "two")]
    for data, key, echoed in cases:
        with pytest.raises(DeviceError) as info:
            ClusterConfig.from_dict(data)
        assert info.value.key == key and echoed in info.value.message, data
    assert DeviceConfig.from_dict({"kind": "cluster"}).kind == "cluster"


def test_cluster_file_round_trip_and_tf_config(tmp_path: Path) -> None:
    request = {"spec": {"name": "m"}, "dataset": {"name": "digits28"}, "training": {},
               "device": {"kind": "cluster"}, "cluster": {"workers": 2},
               "created": "x", "versions": {}}
    body = cluster_file_body("run-1", request, ["127.0.0.1:1", "127.0.0.1:2"], 2)
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(body))
    read = read_cluster_file(path)
    assert read["workers"] == ["127.0.0.1:1", "127.0.0.1:2"] and read["attempt"] == 2
    assert "created" not in read["request"] and read["request"]["cluster"] == {"workers": 2}
    assert tf_config(read["workers"], 1) == {
        "cluster": {"worker": ["127.0.0.1:1", "127.0.0.1:2"]},
        "task": {"type": "worker", "index": 1}}
    path.write_text(json.dumps({"format": 1, "workers": ["a:1"]}))
    with pytest.raises(DeviceError) as info:
        read_cluster_file(path)
    assert info.value.key == "cluster.err.file"
    assert join_command("cluster.json", 2) == \
        "python -m tfcore worker --join cluster.json --index 2"


def test_free_ports_are_distinct_and_bindable() -> None:
    ports = free_ports(3)
    assert len(set(ports)) == 3
    for port in ports:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))


def test_cpu_shares_slots_and_thread_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    assert cpu_shares([0, 1, 2, 3, 4], 2) == [[0, 1, 2], [3, 4]]
    assert cpu_shares([0, 1], 2) == [[0], [1]]
    assert cpu_shares([0], 2) == [[0], [0]]          # fewer cores than workers: they share
    assert cpu_env([2, 3]) == {"TFLAB_CPUS": "2,3", "TF_NUM_INTRAOP_THREADS": "2",
                               "TF_NUM_INTEROP_THREADS": "2", "OMP_NUM_THREADS": "2"}
    monkeypatch.setattr("tfcore.training.cluster_jobs.available_cpus", lambda: [0, 1, 2, 3])
    assert cpu_slot([], 1) == (None, [0, 1, 2, 3])     # one run at a time: every core
    assert cpu_slot([], 2) == (0, [0, 1])
    assert cpu_slot([{"cpu_slot": 0}], 2) == (1, [2, 3])
    assert cpu_slot([{"cpu_slot": 0}, {"cpu_slot": 1}], 2) == (None, [0, 1, 2, 3])


def test_start_run_keeps_the_checked_layout_and_refuses_a_bad_one(tmp_path: Path) -> None:
    from tests.unit.fixtures_train import mlp_request

    bad = mlp_request() | {"device": {"kind": "cluster", "cluster": {"hosts": ["x"]}}}
    with pytest.raises(DeviceError):
        jobs.start_run(tmp_path, bad)
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith(".")]  # nothing made


@pytest.mark.parametrize("argv, said", [
    (["train", "--workers", "3"], "add --device cluster"),
    (["train", "--device", "cluster", "--hosts", "a:1,b"], "host:port"),
    (["train", "--device", "cluster", "--workers", "1"], "2 to 16 workers"),
    (["train", "--device", "cluster", "--logical-devices", "2"], "do not apply"),
    (["train", "--device", "cluster", "--workers", "2", "--hosts", "a:1,b:1"], "not both"),
    (["worker", "--join", "/no/such/cluster.json", "--index", "1"], "No cluster file"),
])
def test_cli_cluster_flags_exit_2_with_a_message(argv: list[str], said: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    code = main([*argv, *(["--runs-root", str(tmp_path)] if argv[0] == "train" else [])])
    err = capsys.readouterr().err
    assert code == 2 and said in err and "Traceback" not in err, err
    assert not list(tmp_path.glob("*/run.json"))


def test_worker_command_refuses_the_chief_index(tmp_path: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(cluster_file_body("r", {"spec": {}}, ["a:1", "b:1"], 1)))
    assert main(["worker", "--join", str(path), "--index", "0"]) == 2
    assert "worker 0 is the chief" in capsys.readouterr().err
