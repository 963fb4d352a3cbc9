import type Router from "@koa/router";
import { PRESETS } from "@caption/shared/presets/catalog";
import { migrationsApplied } from "@caption/shared/db/migrator";
import { sql } from "kysely";
import type { AppDeps } from "../app-deps.ts";
import type { AppState } from "../app-state.ts";
import { buildOpenApiDocument } from "../openapi.ts";
import { baseUrlOf } from "../base-url.ts";

/** Endpoints without an API key: presets, the OpenAPI document, health. */
export function publicRoutes(router: Router<AppState>, deps: AppDeps): void {
  const presetsBody = { presets: PRESETS };
  router.get("/v1/presets", (ctx) => {
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.body = presetsBody;
  });
  router.get("/v1/openapi.json", (ctx) => {
    ctx.body = buildOpenApiDocument(baseUrlOf(ctx, deps.publicBaseUrl));
  });
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
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
  });
}
