// The canvas's nodes: one component draws an input, a layer (or block) and the outputs.
import { Handle, Position } from "@xyflow/react";
import { send } from "./protocol.js";

// A node's box in canvas units before it is drawn: three lines of 12 px text (name; type,
// size and activation; shape and parameters), two more with a problem.
// tfcore/model/canvas_place.py places new nodes by the same width.
export const NODE_W = 210, NODE_H = 64;

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
      {(data.shape || data.params || data.block) && <div className="tfl-row">
        {data.shape && <span className="tfl-shape">{data.shape}</span>}
        {data.params && <span className="tfl-params">{data.params}</span>}
        {data.block && <button className="tfl-open nodrag" data-testid="canvas-open"
                               onClick={(e) => { e.stopPropagation();
                                                 send("open", { name: data.id }); }}>
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

export const nodeTypes = { layer: LayerNode };

// React Flow nodes from the graph Python drew.
export function toNodes(graph, selected, openLabel) {
  return graph.nodes.map((n) => ({
    id: n.id, type: "layer", position: { x: n.x, y: n.y },
    data: { ...n, open_label: openLabel || "" },
    selected: n.id === selected, draggable: n.draggable !== false,
    deletable: n.deletable !== false,
  }));
}
