// The canvas: the palette beside React Flow's pane. It draws the graph Python sent and
// turns every gesture into an event (protocol.js); Python edits the spec and sends the
// redrawn graph back (the spec is the single source of truth).
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Background, Controls, ReactFlow, applyNodeChanges, useReactFlow, useStore }
  from "@xyflow/react";
import { acknowledge, send } from "./protocol.js";
import { autoLayout, toEdges } from "./edges.js";
import { nodeTypes, toNodes } from "./nodes.jsx";
import { Palette } from "./palette.jsx";
import { Toolbar } from "./toolbar.jsx";
import { useFullScreen, usePaletteDrag, useUndoKeys } from "./hooks.js";
import { setFrameHeight } from "./streamlit.js";

// Fit-view never zooms out so far that a node's smallest text (SMALLEST_PX, canvas.css)
// is drawn below READABLE_PX: a graph too big for the pane at that size is centred and
// panned (drag the pane, or the zoom buttons) rather than shrunk to unreadable text.
const READABLE_PX = 11, SMALLEST_PX = 12;
const FIT = { maxZoom: 1, minZoom: READABLE_PX / SMALLEST_PX, padding: 0.1 };
// After auto-layout the canvas grows up to this many page heights so that every node is
// in view at that zoom (the page scrolls, not the canvas; a longer graph is cut into
// columns, edges.js).
const MAX_PAGES = 2.5;

// The height of the window showing the page (the builder page around the iframe when it
// can be read, same origin), in px.
function pageHeight() {
  try {
    return (window.parent || window).innerHeight || window.innerHeight;
  } catch {
    return window.innerHeight;
  }
}

// The canvas's height: Python's, or the taller one an auto-layout asked for; back to
// Python's when the drawn level or the number of nodes changes.
function useHeight(base, key) {
  const [grown, setGrown] = useState({ key, height: base });
  const height = grown.key === key ? Math.max(base, grown.height) : base;
  useEffect(() => { setFrameHeight(height + 4); });
  const grow = useCallback((h) => setGrown({ key, height: h }), [key]);
  return [height, grow];
}

// A value that changes only when its JSON does (Streamlit sends new objects every rerun).
function useStable(value) {
  const text = JSON.stringify(value);
  return useMemo(() => JSON.parse(text), [text]);
}

// The nodes as drawn, dragged positions included; redrawn whenever Python's graph, the
// selection or the open button's label change.
function useNodes(graph, selected, openLabel) {
  const [drawn, setDrawn] = useState({ graph, selected, openLabel });
  const [nodes, setNodes] = useState(() => toNodes(graph, selected, openLabel));
  if (drawn.graph !== graph || drawn.selected !== selected || drawn.openLabel !== openLabel) {
    setDrawn({ graph, selected, openLabel });
    setNodes(toNodes(graph, selected, openLabel));
  }
  return [nodes, setNodes];
}

// The layers picked with Ctrl+click (to group them), forgotten when another level opens.
function usePicked(where) {
  const [picked, setPicked] = useState({ where, names: [] });
  const names = picked.where === where ? picked.names : [];
  const pick = useCallback((ns) => setPicked({ where, names: ns }), [where]);
  return [names, pick];
}

export function Canvas({ args }) {
  const graph = useStable(args.graph);
  const trail = useStable(args.trail);
  const labels = args.labels;
  const sequential = graph.kind === "sequential";
  const flow = useReactFlow();
  const [nodes, setNodes] = useNodes(graph, args.selected, labels.open);
  const edges = useMemo(() => toEdges(graph, labels.shares), [graph, labels.shares]);
  const [picked, setPicked] = usePicked(trail);
  const paneRef = useRef(null);
  const rootRef = useRef(null);
  const [ghost, startDrag] = usePaletteDrag(flow, paneRef);
  useUndoKeys();
  const [fitTick, setFitTick] = useState(0);       // a new value: fit the view once drawn
  const fitSoon = useCallback(() => setFitTick((n) => n + 1), []);
  const [fullScreen, toggleFullScreen] = useFullScreen(rootRef, fitSoon);

  const count = graph.nodes.length;
  const [height, grow] = useHeight(args.height, JSON.stringify(trail) + ":" + count);
  const flowHeight = useStore((s) => s.height);
  useEffect(() => {     // a Sequential stack always fits: drop below it to append
    if (sequential) setTimeout(() => flow.fitView(FIT), 0);
  }, [count, sequential, flow]);
  useEffect(() => {     // a block opened or closed: show the whole new level
    setTimeout(() => flow.fitView(FIT), 0);
  }, [trail, flow]);
  useEffect(() => {     // after auto-layout (once the pane has its new size) and on
    if (fitTick) setTimeout(() => flow.fitView(FIT), 0);    // entering or leaving full
  }, [fitTick, flowHeight, flow]);                          // screen
  useEffect(() => { acknowledge(args.ack); }, [args.ack]);

  const onNodesChange = useCallback((changes) => {
    setNodes((ns) => applyNodeChanges(changes.filter((c) => c.type !== "remove"), ns));
  }, [setNodes]);

  const onNodeDragStop = useCallback((_e, node, dragged) => {
    const moved = dragged && dragged.length ? dragged : [node];
    if (sequential) {
      send("reorder", { name: moved[0].id, y: Math.round(moved[0].position.y) });
      return;
    }
    const positions = {};
    moved.forEach((n) => { positions[n.id] = [Math.round(n.position.x),
                                              Math.round(n.position.y)]; });
    send("move", { positions });
  }, [sequential]);

  const onDelete = useCallback(({ nodes: ns, edges: es }) => {
    const gone = new Set(ns.map((n) => n.id));
    send("delete", { nodes: ns.map((n) => n.id),
                     edges: es.filter((e) => !gone.has(e.source) && !gone.has(e.target))
                       .map((e) => ({ source: e.source, target: e.target,
                                      role: e.data.role })) });
  }, []);

  const layOut = () => {      // drawn here at once, stored by Python, then fitted
    const pane = paneRef.current.querySelector(".tfl-flow");
    const { positions, height: needed } = autoLayout(nodes, edges, {
      width: pane.clientWidth, height: args.height, zoom: FIT.minZoom, padding: FIT.padding,
      maxHeight: fullScreen ? window.innerHeight : Math.round(MAX_PAGES * pageHeight()),
      chrome: rootRef.current.clientHeight - pane.clientHeight });
    if (!fullScreen) grow(needed);
    setNodes((ns) => ns.map((n) => positions[n.id] ? { ...n, position:
      { x: positions[n.id][0], y: positions[n.id][1] } } : n));
    fitSoon();
    send("move", { positions });
  };

  return (
    <div className={"tfl-root" + (fullScreen ? " tfl-full" : "")} ref={rootRef}
         style={{ height }} data-testid="canvas-root">
      <Palette palette={args.palette} labels={labels} onStart={startDrag} />
      <div className="tfl-pane" ref={paneRef} data-testid="canvas-pane">
        <Toolbar args={args} labels={labels} picked={picked} onLayout={layOut}
                 fullScreen={fullScreen} onFullScreen={toggleFullScreen} />
        <div className="tfl-flow">
          <ReactFlow nodes={nodes} edges={edges} nodeTypes={nodeTypes}
                     onNodesChange={onNodesChange} onNodeDragStop={onNodeDragStop}
                     onConnect={(c) => send("connect", { source: c.source,
                                                         target: c.target })}
                     isValidConnection={(c) => c.source !== c.target}
                     onDelete={onDelete}
                     onSelectionChange={({ nodes: ns }) => setPicked(
                       ns.filter((n) => n.data.role === "layer").map((n) => n.id))}
                     onNodeClick={(e, n) => {     // Ctrl+click adds to the selection
                       if (!e.ctrlKey && !e.metaKey) send("select", { name: n.id });
                     }}
                     onNodeDoubleClick={(_e, n) => n.data.block
                       && send("open", { name: n.id })}
                     onPaneClick={() => args.selected && send("select", { name: null })}
                     nodesConnectable={!sequential} deleteKeyCode={["Delete", "Backspace"]}
                     multiSelectionKeyCode={["Control", "Meta"]}
                     fitView fitViewOptions={FIT}
                     minZoom={0.1} proOptions={{ hideAttribution: true }}>
            <Background gap={20} />
            <Controls showInteractive={false} fitViewOptions={FIT} />
          </ReactFlow>
        </div>
        {!graph.nodes.some((n) => n.role === "layer") &&
          <div className="tfl-empty">{labels.empty}</div>}
      </div>
      {ghost && <div className="tfl-ghost" style={{ left: ghost.x + 6, top: ghost.y + 6 }}>
        {ghost.item.label}</div>}
    </div>
  );
}
