// Builds the canvas into dist/ (committed): relative asset paths, one minified bundle, and
// dist/source-hash.txt, the hash of the sources it was built from (tools/source-hash.js).
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { sourceHash } from "./tools/source-hash.js";

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
  plugins: [react(), recordSourceHash],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: { output: { entryFileNames: "canvas.js", assetFileNames: "canvas.[ext]" } },
  },
});
