"""The builder's autosaved drafts: round trip, damaged files, bad ids, no needless writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfcore.errors import WorkspaceError
from tfcore.model import Draft, get_preset, new_draft_id, read_draft, spec_digest, write_draft
from tfcore.model.drafts import MAX_DRAFT_BYTES, draft_path

ID = "0123456789abcdef0123456789abcdef"


def test_a_draft_comes_back_as_written(tmp_path: Path) -> None:
    spec = get_preset("tied")
    assert read_draft(tmp_path, ID) is None          # none yet: not an error
    write_draft(tmp_path, ID, Draft(spec, spec_digest(get_preset("mlp"))))
    assert (tmp_path / "drafts" / f"{ID}.json").is_file()
    back = read_draft(tmp_path, ID)
    assert back == Draft(spec, spec_digest(get_preset("mlp")))
    assert back.spec.layers == spec.layers


def test_new_ids_are_valid_and_differ(tmp_path: Path) -> None:
    first, second = new_draft_id(), new_draft_id()
    assert first != second and len(first) == 32
    assert draft_path(tmp_path, first).parent == tmp_path / "drafts"


@pytest.mark.parametrize("bad", ["../../etc/passwd", "ABCDEF0123456789", "0123", "x" * 32,
                                 ID + "/..", "", None, "g" * 20])
def test_a_bad_id_is_refused_before_any_path(tmp_path: Path, bad) -> None:
    with pytest.raises(WorkspaceError) as caught:
        write_draft(tmp_path, bad, Draft(get_preset("mlp")))
    assert caught.value.key == "errors.draft_id"
    with pytest.raises(WorkspaceError):
        read_draft(tmp_path, bad)
    assert not (tmp_path / "drafts").exists()


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"spec": {"kind": "nope"}}',
                                  '{"spec": {}, "base": 7}'])
def test_a_damaged_draft_is_reported_with_its_path(tmp_path: Path, text: str) -> None:
    path = draft_path(tmp_path, ID)
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(WorkspaceError) as caught:
        read_draft(tmp_path, ID)
    assert caught.value.key == "errors.draft_damaged"
    assert caught.value.params["path"] == str(path)
    assert str(path) in caught.value.message


def test_a_huge_draft_is_not_read(tmp_path: Path) -> None:
    path = draft_path(tmp_path, ID)
    path.parent.mkdir(parents=True)
    path.write_bytes(b" " * (MAX_DRAFT_BYTES + 1))
    with pytest.raises(WorkspaceError) as caught:
        read_draft(tmp_path, ID)
    assert caught.value.key == "errors.draft_too_large"


def test_an_unchanged_draft_is_not_rewritten(tmp_path: Path) -> None:
    draft = Draft(get_preset("mlp"), "base")
    digest = write_draft(tmp_path, ID, draft)
    path = draft_path(tmp_path, ID)
    path.write_text("sentinel", encoding="utf-8")    # a rewrite would replace this
    assert write_draft(tmp_path, ID, draft, digest) == digest
    assert path.read_text(encoding="utf-8") == "sentinel"
    changed = Draft(get_preset("tied"), "base")
    assert write_draft(tmp_path, ID, changed, digest) != digest
    assert read_draft(tmp_path, ID) == changed
    rebased = Draft(get_preset("tied"), "other")     # a save moves the baseline: written
    write_draft(tmp_path, ID, rebased, write_draft(tmp_path, ID, changed))
    assert read_draft(tmp_path, ID).base == "other"
