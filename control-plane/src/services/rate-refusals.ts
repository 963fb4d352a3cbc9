import { setTimeout as sleep } from "node:timers/promises";
import type { KeyWithRateCount } from "../db/api-key-repository.ts";

// A key over its rate stays over it until its minute ends: the count only grows within a window. Each API
// process remembers the keys it has seen over, and refuses their next requests from memory until then,
// so a client that ignores Retry-After and keeps asking costs the database nothing (each refusal would
// otherwise be a counted statement, at thousands a second, taken from every other account's requests).
// Such a client is also answered slowly: a remembered refusal waits a second before it is sent, so a client
// that asks again as soon as it is answered asks once a second per connection instead of thousands of times
// (each answer is still work on the same two cores as everyone else's). The waits are capped per process,
// and past the cap refusals go out at once, so holding them costs a bounded amount of memory.
// A key revoked or given a higher limit meanwhile is refused until its window ends, at most a minute.

const WINDOW_MS = 60_000;

/**
 * The keys this process has refused for their rate, each until its window ends, by how requests name the key
 * (`lookup`): the SHA-256 of a bearer key, or `upload:<id>` for the upload URLs of the key that created the upload.
 */
export interface RateRefusals {
  /**
   * The key's row as last counted, while that count was over its limit and its window has not ended, after the
   * refusal's wait; undefined (at once) for any other key.
   */
  refusing(lookup: string, now: Date): Promise<KeyWithRateCount | undefined>;
  /** Remembers a counted row when it is over its limit; anything else is not remembered. */
  note(lookup: string, row: KeyWithRateCount | undefined): void;
  /** Waits as a remembered refusal waits, within the same cap, before another refusal is answered (too many requests at once). */
  slowly(): Promise<void>;
}

export interface RateRefusalOptions {
  /** Keys remembered at most (the oldest forgotten first): a bound on memory whatever the number of keys. */
  maxKeys?: number;
  /** How long a remembered refusal waits before it is answered. */
  delayMs?: number;
  /** Refusals waiting at once at most; past it they are answered at once. */
  maxWaiting?: number;
  /** Waits `ms` (tests count the waits instead of sleeping). */
  pause?: (ms: number) => Promise<void>;
}

export function createRateRefusals(options: RateRefusalOptions = {}): RateRefusals {
  const { maxKeys = 10_000, delayMs = 1000, maxWaiting = 256, pause = (ms) => sleep(ms) } = options;
  const refused = new Map<string, KeyWithRateCount>();
  let waiting = 0;
  const inWindow = (row: KeyWithRateCount, now: Date) => {
    const start = row.window_start.getTime();
    return now.getTime() >= start && now.getTime() < start + WINDOW_MS;
  };
  const slowly = async () => {
    if (waiting >= maxWaiting || delayMs <= 0) return;
    waiting += 1;
    try {
      await pause(delayMs);
    } finally {
      waiting -= 1;
    }
  };
  return {
    async refusing(lookup, now) {
      const row = refused.get(lookup);
      if (!row) return undefined;
      if (!inWindow(row, now)) {
        refused.delete(lookup);
        return undefined;
      }
      await slowly();
      return row;
    },
    slowly,
    note(lookup, row) {
      if (!row || row.window_count <= row.rate_limit_per_minute) return;
      refused.delete(lookup);
      refused.set(lookup, row);
      if (refused.size > maxKeys) refused.delete(refused.keys().next().value as string);
    },
  };
}
