// Builds the code editor into dist/ (committed): relative asset paths, one minified bundle,
// and dist/source-hash.txt, the hash of the sources it was built from (the canvas's tool).
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import { sourceHash } from "../../canvas/frontend/tools/source-hash.js";

const ROOT = dirname(fileURLToPath(import.meta.url));

const recordSourceHash = {
  name: "tflab-source-hash",
  apply: "build",
  generateBundle() {
    this.emitFile({ type: "asset", fileName: "source-hash.txt",
                    source: `${sourceHash(ROOT)}\n` });
  },
};

export default defineConfig({
  base: "./",
  plugins: [recordSourceHash],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: { output: { entryFileNames: "editor.js", assetFileNames: "editor.[ext]" } },
  },
});
