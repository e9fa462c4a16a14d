// Builds the code editor into dist/ (committed): relative asset paths, one minified bundle,
// and dist/source-hash.txt, the hash of the sources it was built from
// (ui/common/frontend-tools/source-hash.js, shared with the canvas).
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import { recordSourceHash } from "../../common/frontend-tools/source-hash.js";

const ROOT = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  base: "./",
  plugins: [recordSourceHash(ROOT)],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: { output: { entryFileNames: "editor.js", assetFileNames: "editor.[ext]" } },
  },
});
