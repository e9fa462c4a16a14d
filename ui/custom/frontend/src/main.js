// The code editor: CodeMirror 6 with Python highlighting, line numbers, Tab indents, long
// lines wrapped (no sideways scrolling on a projector) and a read-only mode. Args (Python, ui/custom/code_editor.py): value, gen, read_only, height,
// label. The value sent back is {text, gen}: the text as typed, and the generation of the
// document it was typed into (the page replaces the document by sending a new gen). Only
// typing is sent: a document the page sent is not echoed back (an echo reran the page a
// moment after Use template, and that rerun wiped the message of a Save clicked meanwhile).
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import {
  bracketMatching, defaultHighlightStyle, indentOnInput, indentUnit, syntaxHighlighting,
} from "@codemirror/language";
import { Compartment, EditorState } from "@codemirror/state";
import {
  EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap,
  lineNumbers,
} from "@codemirror/view";
import { onRender, setComponentValue, setFrameHeight } from "../../../canvas/frontend/src/streamlit.js";

const SEND_AFTER_MS = 400;          // typing pauses this long before the page hears of it
const mode = new Compartment();
const size = new Compartment();
let view = null;
let gen = null;
let timer = null;
let fromPage = false;               // true while the page's own document is put in

const send = () => {
  clearTimeout(timer);
  timer = null;
  setComponentValue({ text: view.state.doc.toString(), gen });
};

const modeFor = (readOnly, label) => [
  EditorState.readOnly.of(readOnly),
  EditorView.editable.of(!readOnly),
  EditorView.contentAttributes.of({ "aria-label": label || "", "aria-readonly": String(readOnly) }),
];

const sizeFor = (height) => EditorView.theme({
  "&": { height: `${height}px`, border: "1px solid #d0d3da", borderRadius: "6px" },
  ".cm-scroller": { fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace",
                    fontSize: "14px", lineHeight: "1.5" },
  "&.cm-focused": { outline: "2px solid #ff4b4b66" },
});

function create(args) {
  const updates = EditorView.updateListener.of((update) => {
    if (!update.docChanged || fromPage) return;
    clearTimeout(timer);
    timer = setTimeout(send, SEND_AFTER_MS);
  });
  const blur = EditorView.domEventHandlers({ blur: () => { if (timer) send(); } });
  view = new EditorView({
    parent: document.getElementById("root"),
    state: EditorState.create({
      doc: args.value || "",
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), drawSelection(),
        history(), indentOnInput(), bracketMatching(), indentUnit.of("    "),
        EditorState.tabSize.of(4), python(), EditorView.lineWrapping,
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap]),
        mode.of(modeFor(!!args.read_only, args.label)), size.of(sizeFor(args.height || 400)),
        updates, blur,
      ],
    }),
  });
}

onRender((args) => {
  if (!view) create(args);
  else {
    const effects = [mode.reconfigure(modeFor(!!args.read_only, args.label)),
                     size.reconfigure(sizeFor(args.height || 400))];
    const changes = args.gen !== gen && args.value !== view.state.doc.toString()
      ? { from: 0, to: view.state.doc.length, insert: args.value || "" } : undefined;
    if (args.gen !== gen) clearTimeout(timer);
    fromPage = true;                // listeners run inside dispatch: nothing to send
    try { view.dispatch({ changes, effects }); } finally { fromPage = false; }
  }
  gen = args.gen;
  setFrameHeight((args.height || 400) + 4);
});
