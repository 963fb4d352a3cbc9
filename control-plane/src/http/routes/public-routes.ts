import { PresetListSchema } from "@caption/shared/api/preset";
import { PRESETS } from "@caption/shared/presets/catalog";
import { migrationsApplied } from "@caption/shared/db/migrator";
import { sql } from "kysely";
import { buildOpenApiDocument } from "../openapi.ts";
import { json } from "../openapi-parts.ts";
import { baseUrlOf } from "../base-url.ts";
import { CHALLENGE_HEADER, identityProof, isToken, PROOF_HEADER } from "../../services/service-identity.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";

const presetsBody = { presets: PRESETS };

/**
 * The OpenAPI document as JSON, per route list and base URL. Building it takes milliseconds of CPU and anyone
 * may ask for it, so it is built once; a handful of base URLs are kept (each Host a client names is one).
 */
const documents = new WeakMap<readonly RouteSpec[], Map<string, string>>();
const DOCUMENTS_PER_ROUTE_LIST = 16;
function openApiJson(baseUrl: string, routes: readonly RouteSpec[]): string {
  let byUrl = documents.get(routes);
  if (!byUrl) documents.set(routes, (byUrl = new Map()));
  let document = byUrl.get(baseUrl);
  if (document === undefined) {
    document = JSON.stringify(buildOpenApiDocument(baseUrl, routes));
    if (byUrl.size >= DOCUMENTS_PER_ROUTE_LIST) byUrl.delete(byUrl.keys().next().value!);
    byUrl.set(baseUrl, document);
  }
  return document;
}

/** Endpoints without an API key: presets, the OpenAPI document, health. */
export const publicRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/presets",
    doc: {
      operationId: "listPresets",
      tags: ["Presets"],
      summary: "All 16 caption presets",
      description: "The preset catalog with each preset's default style and the style fields it honours. No API key needed.",
    },
    auth: "none",
    responses: { "200": { description: "The preset catalog", ...json(PresetListSchema) } },
    handle(ctx) {
      ctx.set("Cache-Control", "public, max-age=300");
      ctx.body = presetsBody;
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/openapi.json",
    auth: "none",
    responses: {},
    handle(ctx, { deps, routes }) {
      ctx.type = "json";
      ctx.body = openApiJson(baseUrlOf(ctx, deps.publicBaseUrl), routes);
    },
  }),
  defineRoute({
    method: "get",
    path: "/healthz",
    auth: "none",
    responses: {},
    handle(ctx) {
      ctx.body = { status: "ok" };
    },
  }),
  defineRoute({
    method: "get",
    path: "/readyz",
    auth: "none",
    headers: { [CHALLENGE_HEADER]: "a local client's challenge: a service given a nonce answers it in X-Caption-Proof (service-identity.ts)" },
    responses: {},
    async handle(ctx, { deps }) {
      const challenge = ctx.get(CHALLENGE_HEADER);
      if (deps.identityNonce !== undefined && isToken(challenge)) {
        ctx.set(PROOF_HEADER, identityProof(deps.identityNonce, challenge));
        ctx.set("Cache-Control", "no-store");
      }
      try {
        await sql`SELECT 1`.execute(deps.db);
        const migrated = await migrationsApplied(deps.db);
        ctx.status = migrated ? 200 : 503;
        ctx.body = { status: migrated ? "ready" : "migrations pending" };
      } catch (error) {
        ctx.state.log.warn({ err: error }, "readiness check failed");
        ctx.status = 503;
        ctx.body = { status: "database unreachable" };
      }
    },
  }),
];
