/**
 * Watches a body as it streams: once a whole window has passed, fewer than `minBytesPerSecond ×
 * window` bytes received in the last window means the sender is dripping. A server that keeps a
 * connection alive with a byte now and then would otherwise hold a worker until the total timeout.
 */
export interface ThroughputGuard {
  /** Counts bytes received now. */
  record(bytes: number): void;
  /** Null while the rate holds, else why the download must stop. */
  check(): string | null;
}

export interface ThroughputGuardOptions {
  /** 0 turns the guard off. */
  minBytesPerSecond: number;
  windowMs: number;
  /** Milliseconds on a monotonic clock; injectable for tests. */
  now?: () => number;
}

export function throughputGuard(options: ThroughputGuardOptions): ThroughputGuard {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const needed = (options.minBytesPerSecond * options.windowMs) / 1000;
  // Arrivals inside the current window, oldest first.
  const arrivals: { at: number; bytes: number }[] = [];
  let inWindow = 0;
  const forget = (at: number) => {
    while (arrivals.length > 0 && arrivals[0]!.at <= at - options.windowMs) inWindow -= arrivals.shift()!.bytes;
  };
  return {
    record(bytes) {
      const at = now();
      arrivals.push({ at, bytes });
      inWindow += bytes;
      forget(at);
    },
    check() {
      const at = now();
      forget(at);
      if (options.minBytesPerSecond <= 0 || at - started < options.windowMs || inWindow >= needed) return null;
      const rate = Math.round(inWindow / (options.windowMs / 1000));
      return `sent ${rate} bytes/s over the last ${options.windowMs / 1000} s, below the minimum of ${options.minBytesPerSecond} bytes/s`;
    },
  };
}
