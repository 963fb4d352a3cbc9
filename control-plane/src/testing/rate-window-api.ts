import { manualClock } from "@caption/shared/testing/manual-clock";
import { startTestApi, type TestApi } from "./test-api.ts";

/**
 * A test API whose clock the test sets within one minute (rate windows are minutes of the API's clock), and
 * whose refusals' waits (a key over its rate, too many requests at once) are taken on a clock of their own
 * that each wait moves at once: counted, not slept.
 */
export interface RateWindowApi {
  t: TestApi;
  /** The start of the minute the clock is set in. */
  minute: Date;
  /** Sets the API's clock `seconds` into that minute (60 is the next one's start). */
  at(seconds: number): void;
  /** The waits of refusals so far, in milliseconds. */
  waits: number[];
}

export async function startRateWindowApi(): Promise<RateWindowApi> {
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const clock = manualClock(minute + 20_000);
  const pauses = manualClock(0, { sleepsAdvance: true });
  const t = await startTestApi({}, { now: clock.date, rateRefusals: { pause: (ms) => pauses.sleep(ms) } });
  return { t, minute: new Date(minute), at: (seconds) => clock.set(minute + seconds * 1000), waits: pauses.slept };
}
