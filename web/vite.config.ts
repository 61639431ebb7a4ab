import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The page is served by the agent's own server at /app (src/deep_research/server/webapp.py),
// from the folder the build writes: no inline script (the server's CSP forbids it).
export default defineConfig({
  base: "/app/",
  plugins: [react()],
  build: {
    outDir: "../src/deep_research/server/static/app",
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: "es2022",
    chunkSizeWarningLimit: 1000,
    // bench.html: the live view's bench (bench/sections/webapp.py); the app never loads it
    rollupOptions: { input: { main: "index.html", bench: "bench.html" } },
  },
});
