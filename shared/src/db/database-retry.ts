import type { Logger } from "pino";
import { realClock, type Clock } from "../time/clock.ts";
import { isDatabaseUnavailable } from "./database-errors.ts";

const FIRST_DELAY_MS = 100;
// A try a second at most: a process serves again within a second of the database's return.
const MAX_DELAY_MS = 1000;

/** What the retries need of a clock. */
export type RetryClock = Pick<Clock, "now" | "sleep">;

export interface RetryOptions {
  /** Stops the retries: the last error is thrown. */
  signal?: AbortSignal;
  /** No try starts after this instant (clock milliseconds): the last error is thrown. */
  deadline?: number;
  /** After each failed try, with the delay before the next. */
  onRetry?(error: unknown, retryInMs: number): void;
  clock?: RetryClock;
}

/** The delays between tries: 100 ms doubling to 1 s. */
export function retryDelayMs(failedTries: number): number {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, failedTries - 1));
}

/**
 * Runs `operation` until it succeeds, retrying (with backoff) as long as it fails because the
 * database is unavailable. Any other error, an aborted signal or a passed deadline ends the retries.
 */
export async function retryWhileDatabaseUnavailable<T>(operation: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const clock = options.clock ?? realClock;
  for (let failed = 1; ; failed++) {
    try {
      return await operation();
    } catch (error) {
      const wait = retryDelayMs(failed);
      const outOfTime = options.deadline !== undefined && clock.now() + wait > options.deadline;
      if (!isDatabaseUnavailable(error) || options.signal?.aborted || outOfTime) throw error;
      options.onRetry?.(error, wait);
      try {
        await clock.sleep(wait, options.signal);
      } catch {
        throw error;
      }
    }
  }
}

export class DatabaseWaitTimeout extends Error {
  override name = "DatabaseWaitTimeout";
}

const REMINDER_MS = 10_000;

/**
 * Start-up: runs `operation` (connect, migrate, register) until the database answers, logging one
 * line when the wait begins, a reminder every 10 s and one when it ends. Gives up after
 * `timeoutSeconds` with a DatabaseWaitTimeout that names the last error.
 */
export async function waitForDatabase<T>(operation: () => Promise<T>, options: { timeoutSeconds: number; logger: Logger; clock?: RetryClock }): Promise<T> {
  const clock = options.clock ?? realClock;
  const started = clock.now();
  let waiting = false;
  let remindAt = 0;
  try {
    const result = await retryWhileDatabaseUnavailable(operation, {
      clock,
      deadline: started + options.timeoutSeconds * 1000,
      onRetry(error) {
        const now = clock.now();
        if (!waiting) {
          waiting = true;
          remindAt = now + REMINDER_MS;
          options.logger.warn({ cause: errorText(error), timeout_s: options.timeoutSeconds }, "database unreachable; waiting for it");
        } else if (now >= remindAt) {
          remindAt = now + REMINDER_MS;
          options.logger.warn({ cause: errorText(error), waited_s: Math.round((now - started) / 1000), timeout_s: options.timeoutSeconds }, "still waiting for the database");
        }
      },
    });
    if (waiting) options.logger.info({ waited_ms: clock.now() - started }, "database reachable");
    return result;
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    throw new DatabaseWaitTimeout(`the database was unreachable for ${options.timeoutSeconds} s (DATABASE_STARTUP_TIMEOUT_SECONDS): ${errorText(error)}`, { cause: error });
  }
}

/** A connection error's message, or its code when it has none (an AggregateError of refused addresses). */
export function errorText(error: unknown): string {
  const { message, code } = error as { message?: unknown; code?: unknown };
  if (typeof message === "string" && message !== "") return message;
  return typeof code === "string" ? code : String(error);
}
