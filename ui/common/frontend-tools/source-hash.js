// The hash of what a component's dist/ is built from, shared by the canvas
// (ui/canvas/frontend) and the code editor (ui/custom/frontend): sha256 over each source
// file (sorted paths; the path, a newline, its bytes with CRLF read as LF, a NUL).
// Each vite.config.js uses recordSourceHash(ROOT) to write it to dist/source-hash.txt;
// tests/unit/test_canvas_build.py recomputes it from the sources, so a change in src/
// without a rebuild fails that test. `node <this file> <frontend folder>` prints it.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const SOURCES = ["index.html", "package-lock.json", "package.json", "vite.config.js",
                        "src"];

function listFiles(root, path) {
  if (!statSync(join(root, path)).isDirectory()) return [path];
  return readdirSync(join(root, path)).flatMap((name) => listFiles(root, `${path}/${name}`));
}

export function sourceHash(root) {
  const hash = createHash("sha256");
  const paths = SOURCES.flatMap((p) => listFiles(root, p)).sort();
  for (const path of paths) {
    const text = readFileSync(join(root, path)).toString("latin1").replace(/\r\n/g, "\n");
    hash.update(`${path}\n`);
    hash.update(Buffer.from(text, "latin1"));
    hash.update("\0");
  }
  return hash.digest("hex");
}

// The vite plugin: on a build, dist/source-hash.txt holds the hash of the sources at root.
export function recordSourceHash(root) {
  return {
    name: "tflab-source-hash",
    apply: "build",
    generateBundle() {
      this.emitFile({ type: "asset", fileName: "source-hash.txt",
                      source: `${sourceHash(root)}\n` });
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(sourceHash(resolve(process.argv[2] || ".")));
}
