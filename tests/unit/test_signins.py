"""Teacher sign-ins kept for the browser (tfcore.lessons.signins): a token the workspace
knows only by its digest, bound to the password, ended by time, by a sign-out or by a new
password; a damaged, foreign or special record is "not signed in"."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from tfcore.lessons import SIGNIN_TTL, prune_signins, sign_in, sign_out, signed_in
from tfcore.lessons.signins import signins_dir
from tfcore.workspace import Workspace

PASSWORD = "correct horse"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws").ensure()


def _record(ws: Workspace, token: str) -> Path:
    return signins_dir(ws) / f"{hashlib.sha256(token.encode()).hexdigest()}.json"


def test_a_sign_in_is_known_by_its_digest_only(ws: Workspace) -> None:
    token = sign_in(ws, PASSWORD)
    assert signed_in(ws, token, PASSWORD)
    files = list(signins_dir(ws).iterdir())
    assert files == [_record(ws, token)]
    assert token not in files[0].read_text() and PASSWORD not in files[0].read_text()
    other = sign_in(ws, PASSWORD)
    assert other != token and signed_in(ws, other, PASSWORD) and signed_in(ws, token, PASSWORD)


def test_a_new_password_a_sign_out_and_time_end_it(ws: Workspace) -> None:
    now = time.time()
    token = sign_in(ws, PASSWORD, now=now)
    assert not signed_in(ws, token, "another password", now=now)
    assert not signed_in(ws, token, None, now=now) and not signed_in(ws, token, "", now=now)
    assert signed_in(ws, token, PASSWORD, now=now + SIGNIN_TTL - 1)
    assert not signed_in(ws, token, PASSWORD, now=now + SIGNIN_TTL + 1)
    sign_out(ws, token)
    assert not signed_in(ws, token, PASSWORD, now=now)
    assert not _record(ws, token).exists()
    sign_out(ws, token)                                  # twice: nothing happens
    sign_out(ws, "../../outside")


@pytest.mark.parametrize("token", [None, 42, "", "short", "a" * 31, "a" * 65, "../" * 12,
                                   "a" * 40 + "/", "ä" * 40])
def test_what_is_not_a_token_is_refused_without_a_read(ws: Workspace, token) -> None:
    assert not signed_in(ws, token, PASSWORD)


@pytest.mark.parametrize("content", [b"", b"{", b"[]", b'{"proof": "x"}',
                                     b'{"proof": 1, "expires": 1e12}',
                                     b'{"proof": "x", "expires": true}',
                                     b'{"proof": "x", "expires": 1e12, "more": 1}',
                                     b"\xff\xfe", b" " * 600])
def test_a_damaged_record_is_not_a_sign_in(ws: Workspace, content: bytes) -> None:
    token = sign_in(ws, PASSWORD)
    _record(ws, token).write_bytes(content)
    assert not signed_in(ws, token, PASSWORD)


def test_a_forged_record_without_the_password_is_not_a_sign_in(ws: Workspace) -> None:
    token = "A" * 43
    path = _record(ws, token)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"proof": "0" * 64, "expires": time.time() + 100}))
    assert not signed_in(ws, token, PASSWORD)


@pytest.mark.parametrize("kind", ["fifo", "folder", "symlink"])
def test_a_special_file_is_refused_at_once(ws: Workspace, tmp_path: Path, kind: str) -> None:
    token = sign_in(ws, PASSWORD)
    path = _record(ws, token)
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        outside = tmp_path / "outside.json"
        outside.write_text(json.dumps({"proof": "0", "expires": time.time() + 100}))
        path.symlink_to(outside)
    assert not signed_in(ws, token, PASSWORD)          # returns: the FIFO is not opened


def test_old_records_are_pruned_when_someone_signs_in(ws: Workspace) -> None:
    old = sign_in(ws, PASSWORD)
    stale = time.time() - SIGNIN_TTL - 10
    os.utime(_record(ws, old), (stale, stale))
    (signins_dir(ws) / "junk.json").write_text("{")
    os.utime(signins_dir(ws) / "junk.json", (stale, stale))
    fresh = sign_in(ws, PASSWORD)
    assert sorted(p.name for p in signins_dir(ws).iterdir()) == [_record(ws, fresh).name]
    assert prune_signins(ws) == 0 and signed_in(ws, fresh, PASSWORD)


def test_a_record_is_read_once_while_its_file_stays_the_same(ws: Workspace,
                                                             monkeypatch) -> None:
    """A page asks several times per rerun: the file is read once and then only stat'ed; a
    sign-out, a rewrite (another sign-in's atomic write, a damaged copy) is seen at once."""
    from tfcore.lessons import signins

    reads: list[Path] = []
    real = signins._read_file
    monkeypatch.setattr(signins, "_read_file", lambda path: reads.append(path) or real(path))
    token = sign_in(ws, PASSWORD)
    assert all(signed_in(ws, token, PASSWORD) for _ in range(5))
    assert reads == [_record(ws, token)]
    assert not signed_in(ws, token, "another password")    # the proof is checked every time
    path = _record(ws, token)
    replacement = path.with_suffix(".new")
    replacement.write_text(json.dumps({"proof": "0" * 64, "expires": time.time() + 100}))
    os.replace(replacement, path)                           # a new file in its place
    assert not signed_in(ws, token, PASSWORD) and len(reads) == 2
    other = sign_in(ws, PASSWORD)
    assert signed_in(ws, other, PASSWORD) and len(reads) == 3
    sign_out(ws, other)
    assert not signed_in(ws, other, PASSWORD) and len(reads) == 3     # gone: no read at all
