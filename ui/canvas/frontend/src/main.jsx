// TF Lab model canvas: React Flow drawing of a model spec. Every gesture is sent to Python
// as an event; Python edits the spec and sends the redrawn graph back (the spec is the
// single source of truth). Events are queued until Python acknowledges them, so two quick
// gestures between two reruns are both applied.
import React, { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import {
  Background, Controls, Handle, MarkerType, Position, ReactFlow, ReactFlowProvider,
  applyNodeChanges, useReactFlow,
} from "@xyflow/react";
import dagre from "@dagrejs/dagre";
import "@xyflow/react/dist/style.css";
import "./canvas.css";
import { onRender, setComponentValue, setFrameHeight } from "./streamlit.js";

const TOKEN = Math.random().toString(36).slice(2, 10);
const NODE_W = 190, NODE_H = 78;
let seq = 0;
let pending = [];

function send(event) {
  seq += 1;
  pending.push({ ...event, seq });
  setComponentValue({ token: TOKEN, events: pending });
}

function acknowledge(ack) {
  const done = ack && ack.token === TOKEN ? ack.seq : 0;
  pending = pending.filter((e) => e.seq > done);
}

function LayerNode({ data, selected }) {
  const cls = ["tfl-node", `tfl-${data.role}`, data.problem ? "tfl-bad" : "",
    data.shares ? "tfl-shared" : "", data.block ? "tfl-blocknode" : "",
    selected ? "tfl-selected" : ""].join(" ");
  return (
    <div className={cls} title={data.problem || ""} data-testid="canvas-node"
         data-name={data.id}>
      {data.role !== "input" && <Handle type="target" position={Position.Top}
                                        className={data.multi ? "tfl-multi" : ""} />}
      <div className="tfl-name">{data.name}</div>
      <div className="tfl-type" title={data.title}>{data.title}</div>
      {data.shape && <div className="tfl-shape">{data.shape}</div>}
      {(data.params || data.block) && <div className="tfl-params">{data.params}
        {data.block && <button className="tfl-open nodrag" data-testid="canvas-open"
                               onClick={(e) => { e.stopPropagation();
                                                 send({ op: "open", name: data.id }); }}>
          ⤢ {data.open_label}</button>}</div>}
      {data.problem && <div className="tfl-problem">⚠ {data.problem}</div>}
      {data.role !== "outputs" && <Handle type="source" position={Position.Bottom} />}
      {data.role === "layer" && <>
        <Handle type="source" id="shares-out" position={Position.Right}
                className="tfl-side" isConnectable={false} />
        <Handle type="target" id="shares-in" position={Position.Left}
                className="tfl-side" isConnectable={false} /></>}
    </div>
  );
}

const nodeTypes = { layer: LayerNode };

function toNodes(graph, selected, labels) {
  return (graph.nodes || []).map((n) => ({
    id: n.id, type: "layer", position: { x: n.x, y: n.y },
    data: { ...n, open_label: (labels || {}).open || "" },
    selected: n.id === selected, draggable: n.draggable !== false,
    deletable: n.deletable !== false,
  }));
}

function toEdges(graph, labels) {
  return (graph.edges || []).map((e) => e.role === "shares" ? ({
    id: e.id, source: e.source, target: e.target, data: e, label: labels.shares,
    sourceHandle: "shares-out", targetHandle: "shares-in", type: "smoothstep",
    className: "tfl-shares-edge", style: { stroke: "#b45309", strokeDasharray: "6 4",
      strokeWidth: 2 }, labelStyle: { fill: "#92400e", fontWeight: 600 },
    deletable: e.deletable !== false,
  }) : ({
    id: e.id, source: e.source, target: e.target, data: e,
    markerEnd: { type: MarkerType.ArrowClosed }, deletable: e.deletable !== false,
  }));
}

function dagreLayout(nodes, edges) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 40, ranksep: 50 });
  g.setDefaultEdgeLabel(() => ({}));
  nodes.forEach((n) => g.setNode(n.id, { width: NODE_W, height: NODE_H }));
  edges.filter((e) => e.data.role !== "shares").forEach((e) => g.setEdge(e.source, e.target));
  dagre.layout(g);
  const out = {};
  nodes.forEach((n) => {
    const p = g.node(n.id);
    out[n.id] = [Math.round(p.x - NODE_W / 2), Math.round(p.y - NODE_H / 2)];
  });
  return out;
}

function Palette({ palette, labels, onStart }) {
  const [text, setText] = useState("");
  const q = text.trim().toLowerCase();
  return (
    <div className="tfl-palette">
      <input className="tfl-search" placeholder={labels.search} value={text}
             aria-label={labels.search} onChange={(e) => setText(e.target.value)} />
      <div className="tfl-hint">{labels.drag_hint}</div>
      {palette.map((fam) => {
        const types = fam.types.filter((t) => !q || t.name.toLowerCase().includes(q)
          || t.label.toLowerCase().includes(q));
        if (!types.length) return null;
        return (
          <details key={fam.family} open={!!q || fam.open}>
            <summary>{fam.label} <span className="tfl-count">{types.length}</span></summary>
            {types.map((t) => (
              <div key={t.name} className="tfl-item" data-type={t.name} title={t.help || ""}
                   onPointerDown={(e) => { e.preventDefault(); onStart(t, e); }}>
                {t.label}
              </div>
            ))}
          </details>
        );
      })}
    </div>
  );
}

function Canvas({ args }) {
  const graph = args.graph || { nodes: [], edges: [] };
  const labels = args.labels || {};
  const sequential = graph.kind === "sequential";
  const flow = useReactFlow();
  const digest = JSON.stringify(graph);
  const [nodes, setNodes] = useState(() => toNodes(graph, args.selected, labels));
  const edges = useMemo(() => toEdges(graph, labels), [digest, labels.shares]);
  const [ghost, setGhost] = useState(null);
  const [picked, setPicked] = useState([]);
  const paneRef = useRef(null);

  useEffect(() => { setNodes(toNodes(graph, args.selected, labels)); },
            [digest, args.selected, labels.open]);
  const count = (graph.nodes || []).length;
  const where = JSON.stringify(args.trail || []);
  useEffect(() => {     // a Sequential stack always fits: drop below it to append
    if (sequential) setTimeout(() => flow.fitView({ maxZoom: 1, padding: 0.15 }), 0);
  }, [count, sequential]);
  useEffect(() => {     // a block opened or closed: show the whole new level
    setPicked([]);
    setTimeout(() => flow.fitView({ maxZoom: 1, padding: 0.15 }), 0);
  }, [where]);
  useEffect(() => { acknowledge(args.ack); }, [args.ack]);

  useEffect(() => {
    const onKey = (e) => {
      const tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA") return;
      if ((e.ctrlKey || e.metaKey) && (e.key === "z" || e.key === "Z")) {
        e.preventDefault();
        send({ op: e.shiftKey ? "redo" : "undo" });
      } else if ((e.ctrlKey || e.metaKey) && (e.key === "y" || e.key === "Y")) {
        e.preventDefault();
        send({ op: "redo" });
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const startDrag = useCallback((item, e) => {
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
      send({ op: "add", type: item.name, x: Math.round(p.x - NODE_W / 2),
             y: Math.round(p.y - 20) });
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }, [flow]);

  const onNodesChange = useCallback((changes) => {
    setNodes((ns) => applyNodeChanges(changes.filter((c) => c.type !== "remove"), ns));
  }, []);

  const onNodeDragStop = useCallback((_e, _node, dragged) => {
    const moved = dragged && dragged.length ? dragged : [_node];
    if (sequential) {
      const node = moved[0];
      send({ op: "reorder", name: node.id, y: Math.round(node.position.y) });
      return;
    }
    const positions = {};
    moved.forEach((n) => { positions[n.id] = [Math.round(n.position.x),
                                              Math.round(n.position.y)]; });
    send({ op: "move", positions });
  }, [sequential]);

  const onDelete = useCallback(({ nodes: ns, edges: es }) => {
    const gone = new Set(ns.map((n) => n.id));
    send({ op: "delete", nodes: ns.map((n) => n.id),
           edges: es.filter((e) => !gone.has(e.source) && !gone.has(e.target))
             .map((e) => ({ source: e.source, target: e.target, role: e.data.role })) });
  }, []);

  const autoLayout = () => send({ op: "move", layout: true,
                                  positions: dagreLayout(nodes, edges) });

  return (
    <div className="tfl-root" style={{ height: args.height || 620 }}>
      <Palette palette={args.palette || []} labels={labels} onStart={startDrag} />
      <div className="tfl-pane" ref={paneRef} data-testid="canvas-pane">
        <div className="tfl-toolbar">
          <button onClick={autoLayout} data-testid="canvas-layout">{labels.auto_layout}</button>
          <button onClick={() => send({ op: "undo" })} disabled={!args.can_undo}
                  data-testid="canvas-undo" title="Ctrl+Z">{labels.undo}</button>
          <button onClick={() => send({ op: "redo" })} disabled={!args.can_redo}
                  data-testid="canvas-redo" title="Ctrl+Shift+Z">{labels.redo}</button>
          {(args.trail || []).length > 0 && <span className="tfl-trail"
                                                  data-testid="canvas-trail">
            {args.trail.map((c, i) => i < args.trail.length - 1
              ? <React.Fragment key={i}><button className="tfl-crumb"
                  data-testid="canvas-crumb"
                  onClick={() => send({ op: "open", path: c.path })}>{c.label}</button> › </React.Fragment>
              : <b key={i}>{c.label}</b>)}</span>}
          {picked.length > 1 &&
            <button onClick={() => send({ op: "group", names: picked })}
                    data-testid="canvas-group">{labels.group}</button>}
          <span className="tfl-status" data-testid="canvas-status">{args.status || ""}</span>
        </div>
        <div className="tfl-flow">
        <ReactFlow nodes={nodes} edges={edges} nodeTypes={nodeTypes}
                   onNodesChange={onNodesChange} onNodeDragStop={onNodeDragStop}
                   onConnect={(c) => send({ op: "connect", source: c.source,
                                            target: c.target })}
                   isValidConnection={(c) => c.source !== c.target}
                   onDelete={onDelete}
                   onSelectionChange={({ nodes: ns }) => setPicked(
                     ns.filter((n) => n.data.role === "layer").map((n) => n.id))}
                   onNodeClick={(e, n) => {     // Ctrl+click adds to the selection
                     if (!e.ctrlKey && !e.metaKey) send({ op: "select", name: n.id });
                   }}
                   onNodeDoubleClick={(_e, n) => n.data.block
                     && send({ op: "open", name: n.id })}
                   onPaneClick={() => args.selected && send({ op: "select", name: null })}
                   nodesConnectable={!sequential} deleteKeyCode={["Delete", "Backspace"]}
                   multiSelectionKeyCode={["Control", "Meta"]}
                   fitView={!args.keep_view} fitViewOptions={{ maxZoom: 1, padding: 0.15 }}
                   minZoom={0.1} proOptions={{ hideAttribution: true }}>
          <Background gap={20} />
          <Controls showInteractive={false} />
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

function App() {
  const [args, setArgs] = useState(null);
  useEffect(() => onRender((a) => {
    setArgs(a);
    setFrameHeight((a.height || 620) + 4);
  }), []);
  if (!args) return null;
  return <ReactFlowProvider><Canvas args={args} /></ReactFlowProvider>;
}

createRoot(document.getElementById("root")).render(<App />);
