// The canvas's edges (data flow, and dashed "shares" links between tied layers) and the
// auto-layout (dagre, top to bottom).
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

// Top-left positions {id: [x, y]} of every node, laid out along the data edges (each node
// as big as it is drawn: one showing a problem is taller).
export function dagreLayout(nodes, edges) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 40, ranksep: 50 });
  g.setDefaultEdgeLabel(() => ({}));
  const size = (n) => ({ width: (n.measured && n.measured.width) || NODE_W,
                         height: (n.measured && n.measured.height) || NODE_H });
  nodes.forEach((n) => g.setNode(n.id, size(n)));
  edges.filter((e) => e.data.role !== "shares").forEach((e) => g.setEdge(e.source, e.target));
  dagre.layout(g);
  const out = {};
  nodes.forEach((n) => {
    const p = g.node(n.id);
    out[n.id] = [Math.round(p.x - p.width / 2), Math.round(p.y - p.height / 2)];
  });
  return out;
}
