"""The builder's autosaved drafts: one spec per browser session in ``<workspace>/drafts``."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from tfcore.errors import TFLabError, WorkspaceError
from tfcore.jsonio import atomic_write_json
from tfcore.model.spec import ModelSpec, from_dict

DRAFTS = "drafts"                     # the folder under the workspace root
DRAFT_ID = re.compile(r"[0-9a-f]{16,64}")
MAX_DRAFT_BYTES = 4_000_000           # a larger file is not read (damaged or not ours)


@dataclass(frozen=True)
class Draft:
    """An autosaved spec and the digest of the spec last saved or loaded (its baseline)."""

    spec: ModelSpec
    base: str = ""


def new_draft_id() -> str:
    """A fresh random draft id (32 hex digits)."""
    return secrets.token_hex(16)


def valid_draft_id(draft_id: object) -> bool:
    """Whether ``draft_id`` is 16-64 lowercase hex digits (nothing else reaches a path)."""
    return isinstance(draft_id, str) and DRAFT_ID.fullmatch(draft_id) is not None


def draft_path(root: Path, draft_id: str) -> Path:
    """The draft file of ``draft_id`` under the workspace ``root``.

    Raises:
        WorkspaceError: the id is not 16-64 lowercase hex digits.
    """
    if not valid_draft_id(draft_id):
        raise WorkspaceError(key="errors.draft_id", params={"draft": str(draft_id)[:80]})
    return Path(root) / DRAFTS / f"{draft_id}.json"


def spec_digest(spec: ModelSpec) -> str:
    """A short digest of the spec's JSON: equal specs, equal digests."""
    return hashlib.sha256(spec.to_json(indent=None).encode("utf-8")).hexdigest()[:32]


def read_draft(root: Path, draft_id: str) -> Draft | None:
    """The draft of ``draft_id``, or None when there is none yet.

    Raises:
        WorkspaceError: a bad id, or the file is too large, unreadable or not a valid spec
            (the message names the file and why).
    """
    path = draft_path(root, draft_id)
    if not path.is_file():
        return None
    size = path.stat().st_size
    if size > MAX_DRAFT_BYTES:
        raise WorkspaceError(key="errors.draft_too_large",
                             params={"path": str(path), "size": size, "limit": MAX_DRAFT_BYTES})
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("base", ""), str):
            raise ValueError("not a draft document")
        return Draft(from_dict(data.get("spec")), data.get("base", ""))
    except (OSError, ValueError, RecursionError, TFLabError) as exc:
        raise WorkspaceError(key="errors.draft_damaged",
                             params={"path": str(path), "why": str(exc)[:300]}) from exc


def write_draft(root: Path, draft_id: str, draft: Draft, last: str | None = None) -> str:
    """Save ``draft`` under ``draft_id`` (atomically) unless its digest equals ``last``
    (the digest of what was written before); returns the digest."""
    digest = f"{spec_digest(draft.spec)}/{draft.base}"
    if digest != last:
        atomic_write_json(draft_path(root, draft_id),
                          {"spec": draft.spec.to_dict(), "base": draft.base})
    return digest
