// The toolbar above the graph: auto-layout, undo/redo, full screen, the way back out of
// open blocks, grouping the picked layers, and the status line.
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

export function Toolbar({ args, labels, picked, onLayout, fullScreen, onFullScreen }) {
  return (
    <div className="tfl-toolbar">
      <button onClick={onLayout} data-testid="canvas-layout">{labels.auto_layout}</button>
      <button onClick={() => send("undo")} disabled={!args.can_undo}
              data-testid="canvas-undo" title={labels.undo_tip}>{labels.undo}</button>
      <button onClick={() => send("redo")} disabled={!args.can_redo}
              data-testid="canvas-redo" title={labels.redo_tip}>{labels.redo}</button>
      <button onClick={onFullScreen} data-testid="canvas-fullscreen"
              title={fullScreen ? labels.exit_full_screen_tip : labels.full_screen}>
        {fullScreen ? "✕ " + labels.exit_full_screen : "⤢ " + labels.full_screen}</button>
      {args.trail.length > 0 && <Trail trail={args.trail} />}
      {picked.length > 1 &&
        <button onClick={() => send("group", { names: picked })}
                data-testid="canvas-group">{labels.group}</button>}
      <span className="tfl-status" data-testid="canvas-status">{args.status}</span>
    </div>
  );
}
