// The palette: the catalog's types by family, with a search box; a type is dragged out.
import { useState } from "react";

export function Palette({ palette, labels, onStart }) {
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
              <div key={t.name} className="tfl-item" data-type={t.name}
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
