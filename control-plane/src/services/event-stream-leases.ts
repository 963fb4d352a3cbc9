import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { releaseEventStreamLeases, renewEventStreamLeases, takeEventStreamLease } from "../db/event-stream-lease-repository.ts";
import { ServiceError } from "./service-error.ts";

/** Open GET /v1/jobs/{id}/events streams one key may hold at once, over all API processes. */
export const MAX_EVENT_STREAMS_PER_KEY = 20;
// A lease outlives its renewal period three times over, so one slow renewal loses no stream; a dead
// process's leases stop counting within a minute.
const LEASE_SECONDS = 60;
const RENEW_EVERY_MS = 20_000;
const RETRY_AFTER_SECONDS = 10;

export interface StreamLeases {
  /** Takes one of the key's stream leases, or throws 429 RATE_LIMITED with Retry-After when all are held. Returns the release. */
  acquire(apiKeyId: string): Promise<() => void>;
  /** Leases this process holds. */
  held(): number;
  /** Stops renewing and releases every lease still held. */
  stop(): Promise<void>;
}

/** The leases of this process's event streams: taken in the database, renewed together, released on close. */
export function createStreamLeases(db: Db, logger: Logger, limit = MAX_EVENT_STREAMS_PER_KEY): StreamLeases {
  const held = new Set<number>();
  // Leases this process holds per key: a key that holds its limit here is refused without the database's
  // lock and count (its streams are open on this process, so the database would refuse it too).
  const heldByKey = new Map<string, number>();
  const count = (apiKeyId: string, delta: number) => {
    const n = (heldByKey.get(apiKeyId) ?? 0) + delta;
    if (n > 0) heldByKey.set(apiKeyId, n);
    else heldByKey.delete(apiKeyId);
  };
  const releasing = new Set<Promise<void>>();
  const release = (ids: number[]) => {
    const done = releaseEventStreamLeases(db, ids)
      .catch((error: unknown) => logger.warn({ err: error }, "event stream leases: release failed"))
      .finally(() => releasing.delete(done));
    releasing.add(done);
  };
  const renew = setInterval(() => {
    renewEventStreamLeases(db, [...held], LEASE_SECONDS).catch((error: unknown) => logger.warn({ err: error }, "event stream leases: renewal failed"));
  }, RENEW_EVERY_MS);
  renew.unref();
  return {
    async acquire(apiKeyId) {
      const refuse = () => {
        const message = `at most ${limit} event streams may be open at once per API key; close one or wait`;
        return new ServiceError("RATE_LIMITED", message, { retryAfterSeconds: RETRY_AFTER_SECONDS });
      };
      if ((heldByKey.get(apiKeyId) ?? 0) >= limit) throw refuse();
      const id = await takeEventStreamLease(db, apiKeyId, limit, LEASE_SECONDS);
      if (id === null) throw refuse();
      held.add(id);
      count(apiKeyId, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(id);
        count(apiKeyId, -1);
        // A lease whose delete fails expires on its own within LEASE_SECONDS: it is no longer renewed.
        release([id]);
      };
    },
    held: () => held.size,
    async stop() {
      clearInterval(renew);
      release([...held]);
      held.clear();
      heldByKey.clear();
      await Promise.all([...releasing]);
    },
  };
}
