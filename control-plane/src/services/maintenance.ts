import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { deleteOldRateWindows } from "../db/api-key-repository.ts";
import { deleteExpiredIdempotencyRecords } from "../db/idempotency-repository.ts";

const EVERY_MS = 60_000;

/** Prunes rate-limit windows and expired idempotency records; safe to run in every API process. */
export function startMaintenance(db: Db, logger: Logger): { stop(): void } {
  const timer = setInterval(() => {
    Promise.all([deleteOldRateWindows(db), deleteExpiredIdempotencyRecords(db)]).catch((error: unknown) => logger.warn({ err: error }, "maintenance failed"));
  }, EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
