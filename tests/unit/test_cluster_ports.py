"""Loopback ports for a local cluster's workers: outside the kernel's ephemeral range (no
``bind(port 0)`` can take them before the workers bind) and reserved, so two launches never
pick the same port."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from tfcore.errors import DeviceError
from tfcore.training.cluster import PORT_FLOOR, PORT_HOLD_S, ephemeral_range, free_ports


def test_the_ephemeral_range_is_read_from_the_kernel_file(tmp_path: Path) -> None:
    path = tmp_path / "range"
    path.write_text("40000\t50000\n")
    assert ephemeral_range(path) == (40000, 50000)
    assert ephemeral_range(tmp_path / "missing") == (32768, 60999)


def test_ports_are_distinct_bindable_and_outside_the_ephemeral_range(tmp_path: Path) -> None:
    low, high = ephemeral_range()
    ports = free_ports(4, folder=tmp_path)
    assert len(set(ports)) == 4
    for port in ports:
        assert PORT_FLOOR <= port < 65536 and not low <= port <= high
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))
    assert sorted(int(p.name) for p in tmp_path.iterdir() if p.name.isdigit()) == sorted(ports)


def test_a_reserved_port_is_not_chosen_again_until_its_hold_ends(tmp_path: Path) -> None:
    small = (PORT_FLOOR + 6, 65535)                 # leaves 6 ports: PORT_FLOOR .. +5
    first = free_ports(4, folder=tmp_path, ephemeral=small)
    second = free_ports(2, folder=tmp_path, ephemeral=small)
    assert not set(first) & set(second)
    with pytest.raises(DeviceError) as info:
        free_ports(1, folder=tmp_path, ephemeral=small)
    assert info.value.key == "cluster.err.no_ports"
    assert info.value.params == {"count": 1, "low": small[0], "high": small[1],
                                 "host": "127.0.0.1"}
    old = time.time() - PORT_HOLD_S - 1
    os.utime(tmp_path / str(first[0]), (old, old))  # a launch long ago: free again
    assert free_ports(1, folder=tmp_path, ephemeral=small) == [first[0]]


def test_a_port_in_use_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("random.shuffle", lambda pool: None)     # the pool in order
    [port] = free_ports(1, folder=tmp_path / "a")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        [again] = free_ports(1, folder=tmp_path / "b")          # nothing reserved there
    assert again > port
