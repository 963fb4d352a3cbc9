import { startTestApi, type TestApi } from "./test-api.ts";

/**
 * A test API whose clock the test sets within one minute (rate windows are minutes of the API's clock), and
 * whose refusals' waits (a key over its rate, too many requests at once) are counted instead of slept.
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
  let clock = new Date(minute + 20_000);
  const waits: number[] = [];
  const t = await startTestApi({}, { now: () => clock, rateRefusals: { pause: async (ms) => void waits.push(ms) } });
  return { t, minute: new Date(minute), at: (seconds) => (clock = new Date(minute + seconds * 1000)), waits };
}
