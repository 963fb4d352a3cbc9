import { sql } from "kysely";
import type { Db } from "@caption/shared/db/database";
import { invalidRequest } from "./service-error.ts";

export interface LanguageSupport {
  /** Throws INVALID_REQUEST when no live worker can transcribe the language. */
  assertSupported(language: string): Promise<void>;
}

/** A worker seen this recently is taken to be running (they refresh their row every 30 s). */
export const LIVE_WITHIN_SECONDS = 90;

/**
 * Workers record their engine's languages at start-up and refresh a heartbeat. With no live
 * worker the fleet is unknown (scaled to zero, still starting), so the request is accepted.
 */
export function createLanguageSupport(db: Db): LanguageSupport {
  return {
    async assertSupported(language) {
      const workers = await db
        .selectFrom("workers")
        .select(["languages"])
        .where("last_seen_at", ">", sql<Date>`now() - make_interval(secs => ${LIVE_WITHIN_SECONDS})`)
        .execute();
      if (workers.length === 0) return;
      const supported = [...new Set(workers.flatMap((w) => w.languages))].sort();
      if (!supported.includes(language)) {
        throw invalidRequest(`language "${language}" is not supported by the installed speech models; supported: ${supported.join(", ")}`);
      }
    },
  };
}
