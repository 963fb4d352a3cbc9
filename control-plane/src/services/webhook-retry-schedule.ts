// When a failed webhook delivery is tried again: exponential backoff, ×4 a step from
// WEBHOOK_RETRY_BASE_SECONDS (10 s) up to 12 h, nine attempts in all. With the defaults the last
// retry comes 27 h after the first attempt: a receiver that is down for a day still gets the event.

export const MAX_DELIVERY_ATTEMPTS = 9;
const FACTOR = 4;
const MAX_DELAY_MS = 12 * 3600 * 1000;

/** The wait after `failedAttempts` failures (1 = after the first); null when no attempt is left. */
export function retryDelayMs(failedAttempts: number, baseMs: number): number | null {
  if (failedAttempts >= MAX_DELIVERY_ATTEMPTS) return null;
  return Math.min(MAX_DELAY_MS, baseMs * FACTOR ** (failedAttempts - 1));
}

/** From the first attempt to the last, if every one fails. */
export function retryWindowMs(baseMs: number): number {
  let total = 0;
  for (let failed = 1; failed < MAX_DELIVERY_ATTEMPTS; failed++) total += retryDelayMs(failed, baseMs) ?? 0;
  return total;
}
