import type { Instrumentation } from "@opentelemetry/instrumentation";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { KoaInstrumentation, KoaLayerType } from "@opentelemetry/instrumentation-koa";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";

// Probes and scrapes would drown the traces of real requests.
const UNTRACED_PATHS = new Set(["/metrics", "/healthz", "/readyz"]);

let enabled: Instrumentation[] = [];

/**
 * Enables the HTTP, Koa and pg instrumentations. They patch modules as they load, so this runs
 * before the application's modules (see register.ts); the SDK started later hands them its providers.
 */
export function enableAutoInstrumentations(): Instrumentation[] {
  if (enabled.length > 0) return enabled;
  enabled = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? "").split("?")[0] ?? ""),
    }),
    // Router layers name the handler; one span per plain middleware is noise.
    new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
    // pg-boss polls every second; only queries inside a traced operation are worth a span.
    new PgInstrumentation({ requireParentSpan: true }),
  ];
  return enabled;
}

/** The instrumentations enabled in this process, if any (none without `--import` of register.ts). */
export const autoInstrumentations = (): readonly Instrumentation[] => enabled;
