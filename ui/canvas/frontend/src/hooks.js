// The canvas's window-level gestures: undo/redo keys, full screen and dragging a palette
// type.
import { useCallback, useEffect, useState } from "react";
import { send } from "./protocol.js";
import { NODE_W } from "./nodes.jsx";

const EDITABLE = new Set(["INPUT", "TEXTAREA", "SELECT"]);

// The undo/redo of a key press (Ctrl/Cmd+Z: -1, Ctrl/Cmd+Shift+Z or Ctrl/Cmd+Y: +1), or 0:
// another key, or one typed into a text box (its own undo).
function undoStep(e) {
  const target = e.target || {};
  if (EDITABLE.has(target.tagName || "") || target.isContentEditable
      || !(e.ctrlKey || e.metaKey)) return 0;
  const key = (e.key || "").toLowerCase();
  if (key === "z") return e.shiftKey ? 1 : -1;
  return key === "y" ? 1 : 0;
}

// The builder page around the canvas: the component is served from the app's own origin
// (Streamlit's iframe allows same-origin), so the page's document can be listened to.
function pageDocument() {
  try {
    return window.parent !== window ? window.parent.document : null;
  } catch {
    return null;      // another origin: only keys pressed in the canvas itself work
  }
}

// Undo/redo keys wherever the builder has focus: in the canvas, and anywhere on the page
// around it except its text boxes. A listener whose canvas was removed (another page or
// the Forms mode) removes itself on the next key.
export function useUndoKeys() {
  useEffect(() => {
    const onKey = (e) => {
      const delta = undoStep(e);
      if (!delta) return;
      e.preventDefault();
      if (delta < 0) send("undo");
      else send("redo");
    };
    const page = pageDocument();
    const onPageKey = (e) => {
      if (!window.frameElement || !window.frameElement.isConnected) {
        page.removeEventListener("keydown", onPageKey);
        return;
      }
      onKey(e);
    };
    window.addEventListener("keydown", onKey);
    if (page) page.addEventListener("keydown", onPageKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      if (page) page.removeEventListener("keydown", onPageKey);
    };
  }, []);
}

// Full screen for the element of ``ref`` (the whole canvas): returns whether it is on and
// the toggle. Escape leaves it (the browser's own key too, where it has one).
export function useFullScreen(ref, onChange) {
  const [full, setFull] = useState(false);
  useEffect(() => {
    const changed = () => {
      setFull(document.fullscreenElement === ref.current && !!ref.current);
      onChange();
    };
    const onKey = (e) => {
      if (e.key === "Escape" && document.fullscreenElement) document.exitFullscreen();
    };
    document.addEventListener("fullscreenchange", changed);
    window.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("fullscreenchange", changed);
      window.removeEventListener("keydown", onKey);
    };
  }, [ref, onChange]);
  const toggle = useCallback(() => {
    if (document.fullscreenElement) document.exitFullscreen();
    else if (ref.current) ref.current.requestFullscreen();
  }, [ref]);
  return [full, toggle];
}

// Drag a palette type: a ghost follows the pointer; a drop inside the pane adds the type
// there. Returns the ghost ({item, x, y} or null) and the drag's start handler.
export function usePaletteDrag(flow, paneRef) {
  const [ghost, setGhost] = useState(null);
  const start = useCallback((item, e) => {
    setGhost({ item, x: e.clientX, y: e.clientY });
    const move = (ev) => setGhost({ item, x: ev.clientX, y: ev.clientY });
    const up = (ev) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      setGhost(null);
      const box = paneRef.current && paneRef.current.getBoundingClientRect();
      if (!box || ev.clientX < box.left || ev.clientX > box.right || ev.clientY < box.top
          || ev.clientY > box.bottom) return;
      const p = flow.screenToFlowPosition({ x: ev.clientX, y: ev.clientY });
      send("add", { type: item.name, x: Math.round(p.x - NODE_W / 2),
                    y: Math.round(p.y - 20) });
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }, [flow, paneRef]);
  return [ghost, start];
}
