/**
 * At most `perKey` name lookups in flight per account in this process; more wait their turn (in
 * order) or until their signal aborts. Whoever points many endpoints at names whose servers never
 * answer only waits on their own lookups: the others' go on.
 */
export interface LookupGate {
  run<T>(key: string, signal: AbortSignal, lookup: () => Promise<T>): Promise<T>;
  /** Lookups in flight for `key` (for tests and logs). */
  inFlight(key: string): number;
}

export const LOOKUPS_PER_ACCOUNT = 4;

export function createLookupGate(perKey: number = LOOKUPS_PER_ACCOUNT): LookupGate {
  const lanes = new Map<string, { active: number; waiting: (() => void)[] }>();

  const release = (key: string) => {
    const lane = lanes.get(key);
    if (!lane) return;
    const next = lane.waiting.shift();
    if (next) next();
    else if (--lane.active === 0) lanes.delete(key);
  };

  const acquire = (key: string, signal: AbortSignal): Promise<void> => {
    signal.throwIfAborted();
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { active: 0, waiting: [] }));
    if (lane.active < perKey) {
      lane.active += 1;
      return Promise.resolve();
    }
    const queue = lane.waiting;
    return new Promise<void>((resolve, reject) => {
      // Handed the slot of a lookup that ended: `active` stays as it was.
      const take = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        queue.splice(queue.indexOf(take), 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      queue.push(take);
    });
  };

  return {
    async run(key, signal, lookup) {
      await acquire(key, signal);
      try {
        return await lookup();
      } finally {
        release(key);
      }
    },
    inFlight: (key) => lanes.get(key)?.active ?? 0,
  };
}
