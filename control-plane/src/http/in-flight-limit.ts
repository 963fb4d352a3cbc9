/** Requests in progress per key (an upload's id) in this process, at most `max` at once. */
export interface InFlightLimit {
  /** Counts a request in and returns what counts it out (once, however often called); undefined when `max` are already in progress. */
  enter(key: string): (() => void) | undefined;
}

export function createInFlightLimit(max: number): InFlightLimit {
  const counts = new Map<string, number>();
  return {
    enter(key) {
      const count = counts.get(key) ?? 0;
      if (count >= max) return undefined;
      counts.set(key, count + 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        const remaining = (counts.get(key) ?? 1) - 1;
        if (remaining === 0) counts.delete(key);
        else counts.set(key, remaining);
      };
    },
  };
}
