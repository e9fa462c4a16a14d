"""The Train page reads an uploaded zip in a child process (issue 28, item 3): while it
reads, a progress bar and a Cancel show and Train waits; Cancel stops it and says so, "Read
it again" starts it again and the page completes itself with the dataset's sizes; a broken
upload is refused with its file named, in both languages."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from PIL import Image

from tests.app.apptest_helpers import (
    assert_clean,
    decode_bars,
    open_page,
    run_until_decoded,
)
from tests.unit.fixtures_hostile_files import image_zip
from tfcore.data.loader import clear_cache
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog


@pytest.fixture()
def lang(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The page's language, also in this test's thread: AppTest formats a choice widget's
    value with the page's ``format_func`` here, outside a script run, where the session's
    language is not known (a rerun of a Chinese page would not find "Upload")."""
    from ui.common import i18n
    from ui.common.st_compat import get_script_run_ctx

    chosen, inside = request.param, i18n.current_lang
    monkeypatch.setattr(i18n, "current_lang", lambda: inside() if get_script_run_ctx(
        suppress_warning=True) is not None else chosen)
    return chosen


def _pick_zip(lang: str, name: str):
    """The Train page in ``lang`` with the uploaded zip ``name`` picked as its data."""
    return open_page("app_pages/train.py", lang, state={
        "train.data.source": "upload", "train.data.upload_kind": "images",
        "train.data.upload_file.images": name})


def _buttons(at) -> dict:
    return {b.label: b for b in at.button}


@pytest.mark.parametrize("lang", ["en", "zh"], indirect=True)
def test_a_zip_reads_apart_with_progress_cancel_and_read_again(lang: str) -> None:
    words = catalog(lang)
    clear_cache()
    root = default_workspace().ensure().root
    image_zip(root, 3000, f"class_{lang}_")
    at = _pick_zip(lang, f"class_{lang}_3000.zip")
    [bar] = decode_bars(at)
    assert bar.proto.text.startswith(words["data.decode.running"].split("{name}")[0])
    assert _buttons(at)[words["train.start"]].disabled      # nothing to train on yet
    _buttons(at)[words["data.decode.cancel"]].click().run()
    assert not decode_bars(at)
    assert any(words["data.decode.cancelled"].split("{name}")[0] in el.value
               for el in at.info)
    assert_clean(at, lang)
    at.run()                                # another rerun does not start it again
    assert not decode_bars(at) and words["data.decode.again"] in _buttons(at)
    _buttons(at)[words["data.decode.again"]].click().run()
    run_until_decoded(at)
    assert not at.exception and not at.error
    sizes = [c.value for c in at.caption if "2" in c.value and "28 x 28" in c.value]
    assert sizes, [c.value for c in at.caption]
    assert not _buttons(at)[words["train.start"]].disabled


@pytest.mark.parametrize("lang", ["en", "zh"], indirect=True)
def test_a_broken_zip_is_refused_with_its_file_named(lang: str) -> None:
    words = catalog(lang)
    clear_cache()
    uploads = default_workspace().ensure().uploads
    buffer = io.BytesIO()
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(buffer, format="PNG")
    with zipfile.ZipFile(uploads / f"broken_{lang}.zip", "w") as archive:
        for i in range(4):
            archive.writestr(f"{'ab'[i % 2]}/{i}.png", buffer.getvalue())
        archive.writestr("b/notes.png", b"not a picture")
    at = run_until_decoded(_pick_zip(lang, f"broken_{lang}.zip"))
    [error] = at.error
    assert "notes.png" in error.value and f"broken_{lang}.zip" in error.value
    assert words["data.decode.again"] in _buttons(at)
    assert not at.exception
