// The canvas side of protocol.json (shared with Python's ui/canvas/component.py): the event
// queue and the arguments' defaults. Events are queued until Python acknowledges them, so
// two quick gestures between two reruns are both applied.
import protocol from "./protocol.json";
import { setComponentValue } from "./streamlit.js";

const TOKEN = Math.random().toString(36).slice(2, 10);
let seq = 0;
let pending = [];

// Send one event: its op and fields must be declared in protocol.json's "events".
export function send(op, fields = {}) {
  const declared = protocol.events[op];
  const unknown = declared ? Object.keys(fields).filter((f) => !(f in declared)) : [op];
  if (unknown.length) {
    console.error(`canvas: ${op} ${unknown.join(", ")} is not in protocol.json`);
    return;
  }
  seq += 1;
  pending.push({ op, ...fields, seq });
  setComponentValue({ token: TOKEN, events: pending });
}

// Python applied every event up to ack.seq of this token: forget them.
export function acknowledge(ack) {
  const done = ack && ack.token === TOKEN ? ack.seq : 0;
  pending = pending.filter((e) => e.seq > done);
}

// The render arguments, with protocol.json's defaults for any that are missing.
export function withDefaults(args) {
  const out = { ...args };
  Object.entries(protocol.args).forEach(([name, field]) => {
    if (out[name] === undefined && "default" in field) out[name] = field.default;
  });
  return out;
}
