"""Teacher rights: which server addresses count as loopback, where the password comes from."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit import config
from streamlit.runtime.secrets import Secrets

from ui.common.rights import is_loopback_address, server_is_loopback, teacher_password


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "localhost", "LocalHost",
                                     "::1", "[::1]", " 127.0.0.1 "])
def test_loopback_addresses(address: str) -> None:
    assert is_loopback_address(address)


@pytest.mark.parametrize("address", ["", None, "0.0.0.0", "::", "[::]", "192.168.1.20",
                                     "10.0.0.1", "::ffff:192.168.1.20", "classroom.local",
                                     "127.0.0.1.example.org"])
def test_shared_addresses(address: str | None) -> None:
    assert not is_loopback_address(address)


@pytest.fixture
def server_address():
    """Set ``server.address`` for one test; restore it afterwards."""
    before = config.get_option("server.address")
    yield lambda value: config.set_option("server.address", value)
    config.set_option("server.address", before)


def test_server_is_loopback_reads_the_server_address_option(server_address) -> None:
    server_address("127.0.0.1")
    assert server_is_loopback()
    server_address("0.0.0.0")
    assert not server_is_loopback()
    server_address("")
    assert not server_is_loopback()


@pytest.fixture
def secrets_files(monkeypatch: pytest.MonkeyPatch):
    """Read secrets from the given files only, with a fresh ``st.secrets``."""
    before = config.get_option("secrets.files")

    def use(*paths: Path) -> None:
        config.set_option("secrets.files", [str(p) for p in paths])
        monkeypatch.setattr(st, "secrets", Secrets())

    yield use
    config.set_option("secrets.files", before)


def test_missing_secrets_file_means_no_password(tmp_path: Path, secrets_files) -> None:
    secrets_files(tmp_path / "absent" / "secrets.toml")
    assert teacher_password() is None


def test_password_comes_from_secrets_toml(tmp_path: Path, secrets_files) -> None:
    path = tmp_path / "secrets.toml"
    path.write_text('teacher_password = "s3cret"\n', encoding="utf-8")
    secrets_files(path)
    assert teacher_password() == "s3cret"


def test_empty_or_unreadable_password_means_none(tmp_path: Path, secrets_files) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text('teacher_password = ""\nother = 1\n', encoding="utf-8")
    secrets_files(empty)
    assert teacher_password() is None
    broken = tmp_path / "broken.toml"
    broken.write_text("teacher_password = \n[[[", encoding="utf-8")
    secrets_files(broken)
    assert teacher_password() is None
