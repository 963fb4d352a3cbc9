import { readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { RouterContext } from "@koa/router";
import { Type } from "@sinclair/typebox";
import { ServiceError } from "../../services/service-error.ts";
import type { AppState } from "../app-state.ts";
import { defineRoute } from "../route-spec.ts";

// The studio (studio/, built by `npm run setup` into studio/dist): one page over the public API, served here with
// its assets. The page's Content-Security-Policy runs only its own scripts and styles and lets it connect only to
// this API (and the object store its result links point at): text a video or a person put on the page can never
// run, nor send the key it holds anywhere. URLs are relative, so it also works behind a proxy that adds a prefix.

const ASSET_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};
// Vite writes every asset into assets/ under a content-hashed name: a name is never reused for other bytes.
const extensions = Object.keys(ASSET_TYPES).map((extension) => extension.slice(1));
export const STUDIO_ASSET_PATTERN = `^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,120}\\.(${extensions.join("|")})$`;
const assetParam = { names: "asset", schema: Type.String({ pattern: STUDIO_ASSET_PATTERN, description: "A built asset of the studio" }) };
const COMPRESSIBLE = new Set([".js", ".css", ".svg"]);

export function studioPolicy(resultOrigin: string | undefined): string {
  const results = resultOrigin ? ` ${resultOrigin}` : "";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "font-src 'self'",
    // blob: pictures and videos are the page's own: previews fetched with the key, the chosen file before upload.
    `img-src 'self' blob:${results}`,
    `media-src 'self' blob:${results}`,
    `connect-src 'self'${results}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

interface Asset {
  type: string;
  raw: Buffer;
  gzip: Buffer | null;
}
const assets = new Map<string, Promise<Asset | null>>();

function loadAsset(file: string): Promise<Asset | null> {
  let asset = assets.get(file);
  if (!asset) {
    const extension = path.extname(file);
    asset = readFile(file).then(
      (raw) => ({ type: ASSET_TYPES[extension]!, raw, gzip: COMPRESSIBLE.has(extension) ? gzipSync(raw, { level: 9 }) : null }),
      () => null,
    );
    // A missing file is looked for again next time (a build may be under way).
    void asset.then((found) => found ?? assets.delete(file));
    assets.set(file, asset);
  }
  return asset;
}

const wantsHtml = (ctx: RouterContext<AppState>) => /\btext\/html\b/i.test(ctx.get("accept"));
const redirectTo = (ctx: RouterContext<AppState>, location: string) => {
  ctx.redirect(location);
  ctx.set("Cache-Control", "no-store");
};

/** GET /studio/ (the page), its assets, and GET / for a browser. */
export const studioRoutes = [
  defineRoute({
    method: "get",
    path: "/",
    auth: "none",
    responses: {},
    handle(ctx) {
      ctx.vary("Accept");
      // A browser asking for a page goes to the studio; JSON clients (curl's */* included) get the API's 404 as before.
      if (wantsHtml(ctx)) redirectTo(ctx, "studio/");
    },
  }),
  defineRoute({
    method: "get",
    path: "/studio",
    auth: "none",
    responses: {},
    async handle(ctx, { deps }) {
      // The router takes /studio and /studio/ alike; the page's relative asset URLs need the slash.
      if (!ctx.path.endsWith("/")) return redirectTo(ctx, "studio/");
      const page = await readFile(path.join(deps.studio.dir, "index.html")).catch(() => null);
      if (!page) throw new ServiceError("NOT_FOUND", "the studio is not built here: `npm run setup` builds it into studio/dist");
      ctx.set("Content-Security-Policy", studioPolicy(deps.studio.resultOrigin));
      ctx.set("Cache-Control", "no-store");
      ctx.set("Referrer-Policy", "no-referrer");
      ctx.set("Cross-Origin-Opener-Policy", "same-origin");
      ctx.type = "text/html; charset=utf-8";
      ctx.body = page;
    },
  }),
  defineRoute({
    method: "get",
    path: "/studio/assets/{file}",
    auth: "none",
    params: { file: assetParam },
    responses: {},
    async handle(ctx, { deps }) {
      // The router has matched the name against assetParam: no path separator, a type listed above.
      const file = ctx.params.file ?? "";
      const asset = await loadAsset(path.join(deps.studio.dir, "assets", file));
      if (!asset) return;
      ctx.set("Cache-Control", "public, max-age=31536000, immutable");
      ctx.type = asset.type;
      if (asset.gzip) {
        ctx.vary("Accept-Encoding");
        if (ctx.acceptsEncodings("gzip", "identity") === "gzip") {
          ctx.set("Content-Encoding", "gzip");
          ctx.body = asset.gzip;
          return;
        }
      }
      ctx.body = asset.raw;
    },
  }),
];
