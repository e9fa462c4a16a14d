"""Both languages have the same keys, the same placeholders and no empty text, in the
pages' catalogs (``ui/common/locales``) and the engine's (``tfcore/locales``) alike."""

from __future__ import annotations

import json
import re

import pytest

from tfcore import messages
from ui.common.i18n import LANGUAGES, LOCALE_DIRS, catalog


def _placeholders(text: str) -> set[str]:
    return {m.split(":")[0].split("!")[0] for m in re.findall(r"\{([^{}]*)\}", text)}


@pytest.mark.parametrize("folder", LOCALE_DIRS, ids=lambda p: p.parent.name)
def test_every_area_file_exists_in_every_language(folder) -> None:
    areas = {lang: sorted(p.name for p in (folder / lang).glob("*.json"))
             for lang in LANGUAGES}
    assert areas["en"] and areas["en"] == areas["zh"]
    assert tuple(LANGUAGES) == messages.LANGUAGES


def test_catalogs_have_identical_keys_per_area_and_no_duplicates() -> None:
    seen: dict[str, str] = {}
    for folder in LOCALE_DIRS:                    # a key lives in the engine's or the pages'
        for path in sorted((folder / "en").glob("*.json")):
            where = f"{folder.parent.name}/{path.name}"
            en = json.loads(path.read_text(encoding="utf-8"))
            zh = json.loads((folder / "zh" / path.name).read_text(encoding="utf-8"))
            assert set(en) == set(zh), f"{where}: {set(en) ^ set(zh)}"
            for key in en:
                assert key not in seen, f"{key} in both {seen.get(key)} and {where}"
                seen[key] = where


def test_the_pages_catalog_holds_the_engine_catalog() -> None:
    for lang in LANGUAGES:
        engine = messages.catalog(lang)
        assert engine and all(catalog(lang)[k] == text for k, text in engine.items())


def test_same_placeholders_and_no_empty_texts() -> None:
    en, zh = catalog("en"), catalog("zh")
    for key, text in en.items():
        assert text.strip() and zh[key].strip(), key
        assert _placeholders(text) == _placeholders(zh[key]), key


def test_chinese_catalog_is_translated() -> None:
    zh = catalog("zh")
    han = sum(1 for text in zh.values() if re.search(r"[\u4e00-\u9fff]", text))
    assert han / len(zh) > 0.8
