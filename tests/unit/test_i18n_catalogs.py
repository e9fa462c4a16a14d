"""Both languages have the same keys, the same placeholders and no empty text."""

from __future__ import annotations

import json
import re

from ui.common.i18n import LANGUAGES, LOCALES_DIR, catalog


def _placeholders(text: str) -> set[str]:
    return {m.split(":")[0].split("!")[0] for m in re.findall(r"\{([^{}]*)\}", text)}


def test_every_area_file_exists_in_every_language() -> None:
    areas = {lang: sorted(p.name for p in (LOCALES_DIR / lang).glob("*.json"))
             for lang in LANGUAGES}
    assert areas["en"] and areas["en"] == areas["zh"]


def test_catalogs_have_identical_keys_per_area_and_no_duplicates() -> None:
    seen: dict[str, str] = {}
    for path in sorted((LOCALES_DIR / "en").glob("*.json")):
        en = json.loads(path.read_text(encoding="utf-8"))
        zh = json.loads((LOCALES_DIR / "zh" / path.name).read_text(encoding="utf-8"))
        assert set(en) == set(zh), f"{path.name}: {set(en) ^ set(zh)}"
        for key in en:
            assert key not in seen, f"{key} in both {seen.get(key)} and {path.name}"
            seen[key] = path.name


def test_same_placeholders_and_no_empty_texts() -> None:
    en, zh = catalog("en"), catalog("zh")
    for key, text in en.items():
        assert text.strip() and zh[key].strip(), key
        assert _placeholders(text) == _placeholders(zh[key]), key


def test_chinese_catalog_is_translated() -> None:
    zh = catalog("zh")
    han = sum(1 for text in zh.values() if re.search(r"[\u4e00-\u9fff]", text))
    assert han / len(zh) > 0.8
