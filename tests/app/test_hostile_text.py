"""User text is shown literally, never as Markdown or HTML (issue 13, item 4): run names,
model names, file names and messages that look like an image or a link render as typed.
Also the builder's paste box refuses a value that does not fit its field (item 5)."""

from __future__ import annotations

import html
import json
import re

import pytest
from markdown_it import MarkdownIt

from tests.app.apptest_helpers import open_page
from tests.unit.fixtures_runs import make_run
from tfcore.workspace import default_workspace
from ui.common import plain, plain_params
from ui.common.i18n import catalog

IMAGE = "![x](http://example.com/a.png)"
LINK = "[link](http://example.com)"
HOSTILE = [
    IMAGE, LINK, "<img src=http://example.com/a.png>", "<script>alert(1)</script>",
    "<http://example.com>", "http://example.com/auto", "www.example.com", "# heading",
    "- item", "1. item", "> quote", "**bold** _it_ ~~gone~~", "`code`", "```\nfence\n```",
    "$x^2$", "$$\\int$$", ":red[coloured]", ":material/home:", "a | b\n--|--\nc | d",
    "[ref]: http://example.com", "[x][ref]", "![x][ref]", "&lt;b&gt;", "&amp;", "\\*not*",
    "line\nbreak\r\nmore", "训练数据.csv", "tab\there", "trailing\\", "    indented code",
    "[link](javascript:alert(1))", "<a href='http://example.com'>a</a>", "__init__",
    "mail me@example.com", "WWW.EXAMPLE.COM", "https://x.y", "ftp://a.b", "mailto:a@b.co",
]
RENDER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
# what GitHub-flavoured Markdown (remark-gfm, used by Streamlit) turns into links on its
# own, found in the text after escapes are decoded (mdast-util-gfm-autolink-literal)
AUTOLINK = re.compile(r"(https?://|www(?=\.))[-.\w]+|[-.\w+]+@[-\w]+(\.[-\w]+)+", re.I)


def _text_of(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()


@pytest.mark.parametrize("text", HOSTILE)
def test_plain_renders_literally(text: str) -> None:
    rendered = RENDER.render(plain(text))
    assert not re.search(r"<(a|img|script|h\d|ul|ol|li|blockquote|code|pre|table|em|strong|s)"
                         r"[\s>]", rendered), rendered
    shown = _text_of(rendered)
    assert not AUTOLINK.search(shown), shown
    assert shown.replace("\u2060", "") == re.sub(r"[\r\n\u2028\u2029]+", " ", text).strip()


def test_plain_params_escape_repr_and_keep_numbers() -> None:
    params = plain_params({"name": LINK, "mb": 1024.06, "count": 3})
    text = "{name!r} {mb:.1f} {count:,}".format(**params)
    assert _text_of(RENDER.render(text)).replace("\u2060", "") == f"{LINK!r} 1024.1 3"
    assert "<a" not in RENDER.render(text)


# --- the app: hostile names render literally --------------------------------------------

MARKDOWN_KINDS = ("markdown", "caption", "error", "warning", "info", "success", "title",
                  "header", "subheader")
LABEL_KINDS = ("button", "checkbox", "toggle", "selectbox", "multiselect", "radio",
               "text_input", "text_area", "number_input")


def _markdown_bodies(at) -> list[str]:
    """Every text the browser renders as Markdown: bodies, alerts and widget labels."""
    texts = [el.value for kind in MARKDOWN_KINDS for el in at.get(kind)]
    texts += [el.label for kind in LABEL_KINDS for el in at.get(kind)]
    texts += [tab.label for tab in at.tabs] + [exp.label for exp in at.expander]
    return [str(text) for text in texts if text]


def assert_literal(at, raw: str) -> None:
    """``raw`` is on the page, and wherever it is, it renders as the text itself."""
    assert not at.exception, [e.value for e in at.exception]
    bodies = _markdown_bodies(at)
    shown = [b for b in bodies if plain(raw) in b or raw in b]
    assert shown, f"{raw!r} is not shown at all"
    for body in bodies:
        rendered = RENDER.render(body)
        assert "example.com" not in "".join(re.findall(r"<(?:a|img)[^>]*>", rendered)), body
        assert not AUTOLINK.search(_text_of(rendered)), body


def _by_key_end(elements, suffix: str):
    return next(el for el in elements if el.key and el.key.endswith(suffix))


@pytest.mark.parametrize("name", [IMAGE, LINK, "<img src=http://example.com/a.png>"])
def test_model_name_renders_literally_in_the_builder(name: str) -> None:
    at = open_page("app_pages/builder.py", "en")
    _by_key_end(at.text_input, ".model_name").set_value(name).run()
    assert_literal(at, name)


def test_saved_model_messages_render_literally() -> None:
    at = open_page("app_pages/builder.py", "en")
    at.text_input(key="bld.save_name").set_value(LINK).run()
    at.button(key="bld.save").click().run()            # refused: not a file name
    assert at.error
    assert_literal(at, LINK)


def test_run_named_like_markdown_renders_literally() -> None:
    root = default_workspace().ensure().runs
    run_id = make_run(root, name=IMAGE, seed=5, steps=4, ckpt_every=2)
    at = open_page("app_pages/runs.py", "en")
    at.selectbox(key="runs.detail.run").set_value(run_id).run()
    confirm = at.checkbox(key=f"runs.manage.confirm.{run_id}")
    assert plain(IMAGE) in confirm.label and IMAGE not in confirm.label
    assert_literal(at, IMAGE)


# --- the paste box refuses a value that does not fit its field ---------------------------

@pytest.mark.parametrize("value", ["four", 3.5, None, True])
def test_paste_box_refuses_a_bad_value_located(value) -> None:
    at = open_page("app_pages/builder.py", "en")
    before = at.session_state["builder.draft"]
    doc = json.loads(before.to_json())
    dense = next(layer for layer in doc["layers"] if layer["type"] == "Dense")
    dense["config"]["units"] = value
    at.text_area(key="bld.paste").set_value(json.dumps(doc)).run()
    at.button(key="bld.load_json").click().run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert plain(f"{dense['name']}.units") in errors and plain(repr(value)) in errors
    after = at.session_state["builder.draft"]
    assert after == before                            # nothing silently became 10
    assert catalog("en")["spec.bad_values"].split(":")[0] == "{where}"


def test_saving_over_a_saved_model_asks_first() -> None:
    from tfcore.model import list_specs

    ws = default_workspace().ensure()
    at = open_page("app_pages/builder.py", "en")
    at.text_input(key="bld.save_name").set_value("keep-me").run()
    at.button(key="bld.save").click().run()
    assert list_specs(ws).count("keep-me") == 1
    saved = " ".join(m.value for m in at.success)
    assert "models/keep-me.json" in saved and str(ws.root) not in saved   # no server path
    first = (ws.models / "keep-me.json").read_text()
    at.text_input(key="bld.save_name").set_value("keep-me").run()
    assert at.button(key="bld.save").disabled                # asks before replacing
    assert "keep-me" in at.checkbox(key="bld.save_replace").label
    at.checkbox(key="bld.save_replace").check().run()
    assert not at.button(key="bld.save").disabled
    at.button(key="bld.save").click().run()
    assert not at.exception and (ws.models / "keep-me.json").read_text() == first
