"""Every key of both catalogs renders with plausible parameters in both languages, and a
Chinese message holds no English words: only names and code.

Parameters are derived from each text's placeholders (numbers where a format spec or a
numeric name asks for one, a list of names for choices, an identifier otherwise). In the
rendered Chinese text these are allowed: the parameter values, text inside backticks, an
English term glossed in full-width brackets after its Chinese name (``轮数（epoch）``), tokens
shaped like code (``tf.function``, ``gpu:N``, ``build()``, ``--device``, ``Conv2D``,
``x_train``, ``scikit-learn``, ``CamelCase``, ``ALLCAPS``), single letters (math names such
as ``x``, ``W``, ``b``), the names the engine
defines (layer types, initializer classes) and the short list of proper nouns below.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from tfcore import messages
from tfcore.model import INITIALIZERS, layer_types
from ui.common.i18n import catalog

ROOT = Path(__file__).resolve().parents[2]

# Proper nouns a Chinese text keeps in Latin letters: products, people, APIs, file types.
PROPER_NOUNS = frozenset({
    "TensorFlow", "Keras", "Python", "NumPy", "Streamlit",          # the software taught
    "Lab",                                                         # the product: TF Lab
    "Datasets", "Playground", "Applications",                      # TensorFlow Datasets,
                                                                   # TensorFlow Playground,
                                                                   # Keras Applications
    "Glorot", "Xavier", "He", "LeCun",                             # initializers' authors
    "Adam", "Adagrad", "Nadam", "Nesterov", "Lion",                                             # optimizers' names
    "Sequential", "Functional", "Model", "Lambda", "None",          # Keras / Python API names
    "Ctrl", "Shift", "Delete",                                     # keyboard keys
})
NUMERIC = re.compile(r"^(low|high|limit|count|total|size|length|rank|n|mb|gib|step|steps|"
                     r"epoch|epochs|index|known|ratio|width|height|pixels|max|min|lr|depth|"
                     r"line|col|seconds|ms|minval|maxval|batch|units|features|classes)$")
LISTS = re.compile(r"^(choices|allowed|names|close|columns|keys|files|layers|outputs)$")
WORD = re.compile(r"[A-Za-z0-9_.:/=()\[\]<>@+*#'-]*[A-Za-z][A-Za-z0-9_.:/=()\[\]<>@+*#'-]*")
CODE_MARK = re.compile(r"[0-9_.:/=<>@+*#]|[a-z][A-Z]|[A-Z]{2}[a-z]|^[A-Z]{2,}s?$|^--?\w|\w-\w")
CALL = re.compile(r"\w\(")                          # name( : a call, as in build()
GLOSS = re.compile(r"（[^（）\u4e00-\u9fff]*）")
VALUE = "\ue000"                                     # a parameter value: never a word


def _fields(text: str) -> list[tuple[str, str, str | None]]:
    return [(name.split(".")[0].split("[")[0], spec or "", conv) for _, name, spec, conv
            in string.Formatter().parse(text) if name]


def dummy_params(*texts: str) -> dict[str, object]:
    """Plausible parameters for every placeholder of ``texts``."""
    params: dict[str, object] = {}
    for text in texts:
        for name, spec, conv in _fields(text):
            if spec or NUMERIC.match(name):
                params[name] = 1234
            elif LISTS.match(name) and not conv:
                params[name] = messages.Names((VALUE, VALUE))
            else:
                params.setdefault(name, VALUE)
    return params


def _engine_names() -> frozenset[str]:
    names = set(layer_types())
    names |= {i.keras_class for i in INITIALIZERS.values()}
    return frozenset(names)


def english_words(text: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The English words of a Chinese message (see the module docstring for what is not)."""
    body = re.sub(r"`[^`]*`", " ", text)
    body = GLOSS.sub(" ", body)
    words = []
    for token in WORD.findall(body):
        bare = token.strip("'()[]")
        if len(re.sub(r"[^A-Za-z]", "", bare)) <= 1 or CODE_MARK.search(bare) or CALL.search(token):
            continue
        if bare in PROPER_NOUNS or bare in allowed:
            continue
        words.append(bare)
    return words


def test_dummy_params_follow_the_placeholders() -> None:
    params = dummy_params("{where}: {total:,} of {limit}; use {choices} ({name!r})")
    assert params == {"where": VALUE, "total": 1234, "limit": 1234,
                      "choices": messages.Names((VALUE, VALUE)), "name": VALUE}


def test_the_check_flags_english_and_passes_names_and_code() -> None:
    engine = _engine_names()
    assert english_words("必须是 an integer from 1 to 1000000", engine) == \
        ["an", "integer", "from", "to"]
    assert english_words("`weights=None` 的 Dense 层与 tf.function、gpu:N、x_train",
                         engine) == []
    assert english_words("轮数（epoch）与 Keras、LSTM、MaxPooling2D、W 和 b", engine) == []
    assert english_words("请使用 valid padding", engine) == ["valid", "padding"]
    assert english_words("即时执行 (Eager)；在 build() 中；--device；RMSprop",
                         engine) == ["Eager"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_key_renders_with_its_params(lang: str) -> None:
    texts, en = catalog(lang), catalog("en")
    failed = []
    for key, text in texts.items():
        params = dummy_params(text, en[key])
        try:
            text.format(**params)
            if key in messages.catalog(lang):          # the engine's own rendering too
                assert messages.render(key, params, lang) is not None
        except (KeyError, IndexError, ValueError, TypeError, AssertionError) as exc:
            failed.append(f"{key}: {type(exc).__name__} {exc}")
    assert not failed, "\n".join(failed)


def test_chinese_messages_hold_no_english_words() -> None:
    engine = _engine_names()
    zh, en = catalog("zh"), catalog("en")
    found = {}
    for key, text in zh.items():
        shown = messages.shown_value(VALUE, "zh")
        rendered = text.format(**{k: (messages.shown_value(v, "zh") if v != VALUE else shown)
                                  for k, v in dummy_params(text, en[key]).items()})
        words = english_words(rendered, engine)
        if words:
            found[key] = (words, text)
    assert not found, "English words in Chinese messages:\n" + "\n".join(
        f"{key}: {words} | {text}" for key, (words, text) in sorted(found.items()))


def test_no_engine_module_holds_chinese() -> None:
    """Chinese lives in the catalogs (tfcore/locales), never in engine Python."""
    han = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "tfcore").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if han.search(line)]
    assert not found, "Chinese in engine Python (move it to tfcore/locales):\n" + "\n".join(found)
