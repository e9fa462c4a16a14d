// Builds the canvas into dist/ (committed): relative asset paths, one minified bundle, and
// dist/source-hash.txt, the hash of the sources it was built from
// (ui/common/frontend-tools/source-hash.js, shared with the code editor).
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { recordSourceHash } from "../../common/frontend-tools/source-hash.js";

const ROOT = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  base: "./",
  plugins: [react(), recordSourceHash(ROOT)],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: { output: { entryFileNames: "canvas.js", assetFileNames: "canvas.[ext]" } },
  },
});
