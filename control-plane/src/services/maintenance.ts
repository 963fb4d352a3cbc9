import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { deleteRateWindowsBefore } from "../db/api-key-repository.ts";
import { deleteExpiredIdempotencyRecords } from "../db/idempotency-repository.ts";

const EVERY_MS = 60_000;
const RATE_WINDOWS_KEPT_MS = 5 * 60_000;

/** Prunes rate-limit windows and expired idempotency records; safe to run in every API process. */
export function startMaintenance(db: Db, logger: Logger, now: () => Date): { stop(): void } {
  const timer = setInterval(() => {
    const windowsBefore = new Date(now().getTime() - RATE_WINDOWS_KEPT_MS);
    Promise.all([deleteRateWindowsBefore(db, windowsBefore), deleteExpiredIdempotencyRecords(db)]).catch((error: unknown) => logger.warn({ err: error }, "maintenance failed"));
  }, EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
