import type { Logger } from "pino";
import { isDatabaseUnavailable } from "@caption/shared/db/database-errors";

/** A queue as the pool sees it: take up to `limit` due entries, then settle each one by its id. */
export interface PoolSource<T> {
  fetch(limit: number): Promise<{ id: string; data: T }[]>;
  complete(id: string): Promise<void>;
  fail(id: string, message: string): Promise<void>;
}

export interface InFlightPool {
  /** Takes no more; waits up to `graceMs` for the entries in flight (one cut off is expired and retried by the queue). */
  stop(graceMs: number): Promise<void>;
}

/**
 * Keeps up to `concurrency` entries in flight, each settled on its own: the moment one ends its slot
 * is filled again, so an entry that takes long (a receiver that never answers, until its timeout)
 * holds one slot and never the others'. While there is room and the queue had nothing more, it looks
 * again every `pollMs`; a freed slot looks at once. One fetch serves every free slot, so an idle
 * process polls once per `pollMs` whatever the concurrency.
 */
export function startInFlightPool<T>(
  source: PoolSource<T>,
  options: { concurrency: number; pollMs: number; logger: Logger },
  handler: (data: T) => Promise<void>,
): InFlightPool {
  const { concurrency, pollMs, logger } = options;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let wake: (() => void) | undefined;

  /** Waits `ms` (for ever when null) or until woken: a slot freed, or stop. */
  const pause = (ms: number | null) =>
    new Promise<void>((resolve) => {
      const timer = ms === null ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const run = async (id: string, data: T) => {
    try {
      await handler(data);
      await source.complete(id);
    } catch (error) {
      await source.fail(id, (error as Error).message ?? String(error)).catch((failError: unknown) => {
        // The entry stays active until the queue expires it and hands it out again.
        logger.warn({ err: failError }, "queue entry could not be marked failed; it will expire and be retried");
      });
    }
  };

  const loop = async () => {
    while (!stopping) {
      const room = concurrency - inFlight.size;
      if (room === 0) {
        await pause(null);
        continue;
      }
      let taken: { id: string; data: T }[] = [];
      try {
        taken = await source.fetch(room);
      } catch (error) {
        // During a database outage this repeats every poll: one short line each, as pg-boss's own polling logs.
        if (isDatabaseUnavailable(error)) logger.warn({ cause: (error as Error).message }, "queue: database unavailable");
        else logger.warn({ err: error }, "queue fetch failed; trying again at the next poll");
      }
      for (const { id, data } of taken) {
        const running: Promise<void> = run(id, data).finally(() => {
          inFlight.delete(running);
          wake?.();
        });
        inFlight.add(running);
      }
      if (taken.length < room && !stopping) await pause(pollMs);
    }
  };
  const looping = loop();

  return {
    async stop(graceMs) {
      stopping = true;
      wake?.();
      await looping;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      clearTimeout(timer);
    },
  };
}
