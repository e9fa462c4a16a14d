// Builds the canvas into dist/ (committed): relative asset paths, one minified bundle.
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  base: "./",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: { output: { entryFileNames: "canvas.js", assetFileNames: "canvas.[ext]" } },
  },
});
