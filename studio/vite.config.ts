import { defineConfig } from "vite";

// The studio's build: relative URLs (served at /studio/, also behind a proxy that adds a prefix), every asset a
// content-hashed file of its own (nothing inlined as data: URLs, which the page's Content-Security-Policy refuses).
export default defineConfig({
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
