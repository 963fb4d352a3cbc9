// When a failed webhook delivery is tried again: exponential backoff, ×4 a step from
// WEBHOOK_RETRY_BASE_SECONDS (10 s) up to 12 h, for as long as the event is younger than 24 h. The
// window is set by time, not by a count of attempts, so that a receiver that is down for a day still
// gets the event whatever the base: with the default the attempts come at 0, 10 s, 50 s, 3.5 min,
// 14 min, 57 min, 3.8 h, 15.2 h and 27.2 h after the event (nine in all); with a base of 0.1 s there
// are more of them, the later ones 12 h apart.

/** Retries go on until an attempt fails at least this long after the event. */
export const RETRY_WINDOW_MS = 24 * 3600 * 1000;
const FACTOR = 4;
export const MAX_RETRY_DELAY_MS = 12 * 3600 * 1000;

/**
 * The wait after the `failedAttempts`-th failure (1 = after the first), made `sinceEventMs` after the
 * event; null when that attempt already came at least 24 h after the event: the delivery is given up.
 */
export function retryDelayMs(failedAttempts: number, baseMs: number, sinceEventMs: number): number | null {
  if (sinceEventMs >= RETRY_WINDOW_MS) return null;
  // Past 2^53 the exponent would give Infinity; the cap is reached long before.
  const exponent = Math.min(failedAttempts - 1, 64);
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * FACTOR ** exponent);
}

/** When each attempt comes, in ms after the event, if every one fails (the first at 0); attempts take no time. */
export function attemptSchedule(baseMs: number): number[] {
  const times = [0];
  for (;;) {
    const at = times[times.length - 1] ?? 0;
    const delay = retryDelayMs(times.length, baseMs, at);
    if (delay === null) return times;
    times.push(at + delay);
  }
}
