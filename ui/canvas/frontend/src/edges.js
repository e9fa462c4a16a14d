// The canvas's edges (data flow, and dashed "shares" links between tied layers) and the
// auto-layout (dagre, top to bottom, cut into columns when too long for the page).
import { MarkerType } from "@xyflow/react";
import dagre from "@dagrejs/dagre";
import { NODE_H, NODE_W } from "./nodes.jsx";

export function toEdges(graph, sharesLabel) {
  return graph.edges.map((e) => e.role === "shares" ? ({
    id: e.id, source: e.source, target: e.target, data: e, label: sharesLabel,
    sourceHandle: "shares-out", targetHandle: "shares-in", type: "smoothstep",
    className: "tfl-shares-edge", style: { stroke: "#b45309", strokeDasharray: "6 4",
      strokeWidth: 2 }, labelStyle: { fill: "#92400e", fontWeight: 600 },
    deletable: e.deletable !== false,
  }) : ({
    id: e.id, source: e.source, target: e.target, data: e,
    markerEnd: { type: MarkerType.ArrowClosed }, deletable: e.deletable !== false,
  }));
}

// The laid-out graph's ranks (dagre, top to bottom; each node as big as it is drawn: one
// showing a problem is taller): [{top, bottom, nodes: [{id, x, y, width, height}]}] in
// order, x/y the node's top-left corner.
function dagreRanks(nodes, edges) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 40, ranksep: RANK_GAP });
  g.setDefaultEdgeLabel(() => ({}));
  const size = (n) => ({ width: (n.measured && n.measured.width) || NODE_W,
                         height: (n.measured && n.measured.height) || NODE_H });
  nodes.forEach((n) => g.setNode(n.id, size(n)));
  edges.filter((e) => e.data.role !== "shares").forEach((e) => g.setEdge(e.source, e.target));
  dagre.layout(g);
  const byCentre = new Map();
  nodes.forEach((n) => {
    const p = g.node(n.id);
    const box = { id: n.id, x: p.x - p.width / 2, y: p.y - p.height / 2, width: p.width,
                  height: p.height };
    if (!byCentre.has(p.y)) byCentre.set(p.y, []);
    byCentre.get(p.y).push(box);
  });
  return [...byCentre.keys()].sort((a, b) => a - b).map((y) => {
    const ns = byCentre.get(y);
    return { nodes: ns, top: Math.min(...ns.map((b) => b.y)),
             bottom: Math.max(...ns.map((b) => b.y + b.height)) };
  });
}

const RANK_GAP = 50, COLUMN_GAP = 40;

// The ranks cut into ``columns`` runs side by side (a long graph read column after column,
// top to bottom): top-left positions {id: [x, y]} and the whole drawing's width and height.
function wrapped(ranks, columns) {
  const all = ranks.flatMap((r) => r.nodes);
  const left = Math.min(...all.map((b) => b.x));
  const width = Math.max(...all.map((b) => b.x + b.width)) - left;
  const per = Math.ceil(ranks.length / columns);
  const positions = {};
  let height = 0;
  for (let c = 0; c * per < ranks.length; c += 1) {
    const run = ranks.slice(c * per, (c + 1) * per);
    const top = run[0].top;
    height = Math.max(height, run[run.length - 1].bottom - top);
    run.forEach((r) => r.nodes.forEach((b) => {
      positions[b.id] = [Math.round(b.x - left + c * (width + COLUMN_GAP)),
                         Math.round(b.y - top)];
    }));
  }
  const used = Math.ceil(ranks.length / per);
  return { positions, width: used * width + (used - 1) * COLUMN_GAP, height };
}

// The auto-layout for a pane: top-left positions {id: [x, y]} of every node along the data
// edges, and the pane height it needs. Every node stays in view at ``zoom`` (the smallest
// zoom that keeps node text readable) with ``padding`` (fit-view's, a share of the pane on
// each side): the pane grows from ``height`` up to ``maxHeight`` (the page scrolls, not the
// canvas); a graph still too tall is cut into columns side by side, as few as fit.
export function autoLayout(nodes, edges, pane) {
  const { width, height, maxHeight, chrome, zoom, padding } = pane;
  const ranks = dagreRanks(nodes, edges);
  const needs = (d) => ({ w: (d.width * zoom) / (1 - 2 * padding),
                          h: (d.height * zoom) / (1 - 2 * padding) + chrome });
  let best = null;
  for (let columns = 1; columns <= Math.max(1, ranks.length); columns += 1) {
    const d = wrapped(ranks, columns);
    const need = needs(d);
    if (columns > 1 && need.w > width) break;           // wider than the pane: stop
    best = { positions: d.positions, height: Math.max(height, Math.ceil(need.h)) };
    if (need.h <= maxHeight) break;
  }
  return { positions: best ? best.positions : {},
           height: best ? Math.min(best.height, Math.max(height, maxHeight)) : height };
}
