// The canvas's window-level gestures: undo/redo keys and dragging a palette type.
import { useCallback, useEffect, useState } from "react";
import { send } from "./protocol.js";
import { NODE_W } from "./nodes.jsx";

// Ctrl/Cmd+Z undoes, Ctrl/Cmd+Shift+Z and Ctrl/Cmd+Y redo (not while typing).
export function useUndoKeys() {
  useEffect(() => {
    const onKey = (e) => {
      const tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA" || !(e.ctrlKey || e.metaKey)) return;
      const key = e.key.toLowerCase();
      if (key === "z" && !e.shiftKey) {
        e.preventDefault();
        send("undo");
      } else if (key === "y" || key === "z") {
        e.preventDefault();
        send("redo");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
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
