import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { LiteralUnion } from "@caption/shared/api/style";
import { baseUrlOf } from "../base-url.ts";
import { defineRoute } from "../route-spec.ts";

// GET /docs: Swagger UI (npm swagger-ui-dist) over GET /v1/openapi.json, every asset served from
// here. The page's Content-Security-Policy allows nothing from elsewhere, so it cannot silently start
// loading a CDN's copy, and "Try it out" reaches only this API.

const distDir = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

// Relative URLs throughout, so the page also works behind a proxy that adds a path prefix.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Caption service API reference</title>
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

const INIT = `"use strict";
window.ui = SwaggerUIBundle({
  url: "v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  // No third-party validator badge: the page talks to this service only.
  validatorUrl: null,
  tryItOutEnabled: false,
  displayRequestDuration: true,
});
`;

const cache = new Map<string, Buffer>();
async function asset(name: string): Promise<Buffer> {
  let bytes = cache.get(name);
  if (!bytes) cache.set(name, (bytes = await readFile(path.join(distDir, name))));
  return bytes;
}

/** The API reference page and its assets: outside the document they render. */
export const docsRoutes = [
  defineRoute({
    method: "get",
    path: "/docs",
    auth: "none",
    responses: {},
    handle(ctx, { deps }) {
      const api = new URL(baseUrlOf(ctx, deps.publicBaseUrl)).origin;
      ctx.set("Content-Security-Policy", `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ${api}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`);
      ctx.set("Cache-Control", "no-cache");
      ctx.type = "text/html; charset=utf-8";
      ctx.body = PAGE;
    },
  }),
  defineRoute({
    method: "get",
    path: "/docs/init.js",
    auth: "none",
    responses: {},
    handle(ctx) {
      ctx.type = "text/javascript; charset=utf-8";
      ctx.body = INIT;
    },
  }),
  defineRoute({
    method: "get",
    path: "/docs/assets/{file}",
    auth: "none",
    params: { file: { names: "asset", schema: LiteralUnion(Object.keys(ASSETS), { description: "An asset of the page" }) } },
    responses: {},
    async handle(ctx) {
      const file = ctx.params.file ?? "";
      const type = ASSETS[file]!;
      ctx.set("Cache-Control", "public, max-age=86400");
      ctx.type = type;
      ctx.body = await asset(file);
    },
  }),
];
