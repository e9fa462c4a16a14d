"""Teacher sign-ins that outlast a page reload and reach every server process.

When the teacher types the password on a shared server, the page asks for a sign-in here:
a random token for the browser to keep (in a cookie) and a small file in the workspace
(``classroom/signins/<digest>.json``), so that a reload, a new tab, or another process of
the class setup recognises the browser without asking again.

- The file is named by the SHA-256 of the token: the workspace never holds the token.
- The file holds an HMAC of the token keyed with the password: a changed password ends
  every sign-in made with the old one.
- A sign-in ends after :data:`SIGNIN_TTL` seconds, or at once when the teacher signs out.
- Every read is checked: a damaged, foreign or special file means "not signed in".
- A record once read is kept in memory under its file's identity (device, inode, size,
  change time): a page that asks several times per rerun costs one ``stat`` a question, and a
  sign-out (the file gone) or a rewrite (a new identity) is seen at once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import time
from functools import lru_cache
from pathlib import Path

from tfcore.errors import TFLabError
from tfcore.jsonio import atomic_write_json
from tfcore.lessons.follow import classroom_dir, prune_older
from tfcore.workspace import Workspace, open_regular

SIGNINS = "signins"
SIGNIN_TTL = 12 * 3600.0            # a school day: the teacher signs in again the next day
MAX_BYTES = 512
BROWSER_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
CACHE_SIZE = 256                    # records kept read (a class has one teacher, some tabs)


def signins_dir(workspace: Workspace) -> Path:
    return classroom_dir(workspace) / SIGNINS


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def _proof(token: str, password: str) -> str:
    return hmac.new(password.encode("utf-8"), token.encode("ascii"),
                    hashlib.sha256).hexdigest()


def _path(workspace: Workspace, token: str) -> Path:
    return signins_dir(workspace) / f"{_digest(token)}.json"


def sign_in(workspace: Workspace, password: str, now: float | None = None) -> str:
    """Record a sign-in with ``password`` (the one the teacher just typed, already checked)
    and return its token for the browser to keep. Expired sign-ins are pruned first."""
    now = time.time() if now is None else now
    prune_signins(workspace, now)
    token = secrets.token_urlsafe(32)
    atomic_write_json(_path(workspace, token),
                      {"proof": _proof(token, password), "expires": now + SIGNIN_TTL})
    return token


def _identity(path: Path) -> tuple | None:
    """The file's identity, or None when there is no regular file there."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _read(path: Path) -> dict | None:
    """The record at ``path``, checked; from memory while the file is the one read (as
    :mod:`tfcore.lessons.follow` keeps the lead and the presence records)."""
    identity = _identity(path)
    return None if identity is None else _read_known(path, identity)


@lru_cache(maxsize=CACHE_SIZE)
def _read_known(path: Path, identity: tuple) -> dict | None:
    return _read_file(path)


def _read_file(path: Path) -> dict | None:
    try:
        with open_regular(path) as handle:
            raw = handle.read(MAX_BYTES + 1)
    except (OSError, TFLabError):
        return None
    if len(raw) > MAX_BYTES:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or set(data) != {"proof", "expires"} \
            or not isinstance(data["proof"], str) \
            or not isinstance(data["expires"], (int, float)) \
            or isinstance(data["expires"], bool):
        return None
    return data


def signed_in(workspace: Workspace, token: object, password: str | None,
              now: float | None = None) -> bool:
    """Whether ``token`` (what a browser sent; anything) is a live sign-in made with
    ``password``. No password (the rules are off), a malformed token, an unknown, expired,
    damaged or foreign record: False."""
    if not password or not isinstance(token, str) or not BROWSER_TOKEN.match(token):
        return False
    data = _read(_path(workspace, token))
    if data is None:
        return False
    now = time.time() if now is None else now
    return now < data["expires"] and hmac.compare_digest(data["proof"],
                                                         _proof(token, password))


def sign_out(workspace: Workspace, token: object) -> None:
    """End the sign-in ``token`` (nothing happens for one that is not known)."""
    if isinstance(token, str) and BROWSER_TOKEN.match(token):
        try:
            os.unlink(_path(workspace, token))
        except OSError:
            pass


def prune_signins(workspace: Workspace, now: float | None = None) -> int:
    """Delete sign-in records past their time; returns how many went."""
    return prune_older(signins_dir(workspace), SIGNIN_TTL, now)
