// TF Lab model canvas: a Streamlit component (protocol.json says what crosses the iframe).
// Modules: canvas.jsx (the pane), nodes.jsx, edges.js (edges and auto-layout), palette.jsx,
// toolbar.jsx, hooks.js (keys, palette drag), protocol.js (events), streamlit.js (glue).
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { ReactFlowProvider } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import "./canvas.css";
import { Canvas } from "./canvas.jsx";
import { withDefaults } from "./protocol.js";
import { onRender } from "./streamlit.js";

function App() {
  const [args, setArgs] = useState(null);
  useEffect(() => onRender((raw) => {
    const a = withDefaults(raw);
    setArgs(a);          // the canvas sets its frame's height (it grows after auto-layout)
  }), []);
  if (!args) return null;
  return <ReactFlowProvider><Canvas args={args} /></ReactFlowProvider>;
}

createRoot(document.getElementById("root")).render(<App />);
