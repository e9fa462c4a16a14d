// The toolbar above the graph: auto-layout, undo/redo, the way back out of open blocks,
// grouping the picked layers, and the status line.
import { Fragment } from "react";
import { send } from "./protocol.js";

function Trail({ trail }) {
  return (
    <span className="tfl-trail" data-testid="canvas-trail">
      {trail.map((c, i) => i < trail.length - 1
        ? <Fragment key={i}><button className="tfl-crumb" data-testid="canvas-crumb"
            onClick={() => send("open", { path: c.path })}>{c.label}</button> › </Fragment>
        : <b key={i}>{c.label}</b>)}
    </span>
  );
}

export function Toolbar({ args, labels, picked, onLayout }) {
  return (
    <div className="tfl-toolbar">
      <button onClick={onLayout} data-testid="canvas-layout">{labels.auto_layout}</button>
      <button onClick={() => send("undo")} disabled={!args.can_undo}
              data-testid="canvas-undo" title="Ctrl+Z">{labels.undo}</button>
      <button onClick={() => send("redo")} disabled={!args.can_redo}
              data-testid="canvas-redo" title="Ctrl+Shift+Z">{labels.redo}</button>
      {args.trail.length > 0 && <Trail trail={args.trail} />}
      {picked.length > 1 &&
        <button onClick={() => send("group", { names: picked })}
                data-testid="canvas-group">{labels.group}</button>}
      <span className="tfl-status" data-testid="canvas-status">{args.status}</span>
    </div>
  );
}
