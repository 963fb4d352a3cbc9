import type { Clock } from "../time/clock.ts";

/**
 * The one clock tests drive: it stands still until the test moves it (`advance`, `set`), or, made with
 * `{ sleepsAdvance: true }`, moves by each sleep as it is taken (code that only waits on its own sleeps).
 * Code that takes a `Clock` gets it whole; code that takes `now` gets `clock.now` or `clock.date`.
 */
export interface ManualClock extends Clock {
  /** The clock's time as a Date (for code that takes `now: () => Date`). */
  date(): Date;
  /** Moves time on by `ms`, running the sleeps and ticks that fall due on the way, in time order. */
  advance(ms: number): void;
  /** Moves time to `ms` since the epoch (forward, as `advance`; or back, running nothing). */
  set(ms: number | Date): void;
  /** Every sleep taken, in milliseconds, in order. */
  readonly slept: number[];
}

interface Timer {
  at: number;
  /** Runs the timer; an interval schedules itself again. */
  fire(): void;
}

export function manualClock(start: number | Date = Date.UTC(2026, 0, 1), options: { sleepsAdvance?: boolean } = {}): ManualClock {
  let now = typeof start === "number" ? start : start.getTime();
  const timers = new Set<Timer>();
  const slept: number[] = [];
  const clock: ManualClock = {
    slept,
    now: () => now,
    date: () => new Date(now),
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        slept.push(ms);
        if (options.sleepsAdvance) {
          now += ms;
          return resolve();
        }
        const timer: Timer = { at: now + ms, fire: resolve };
        timers.add(timer);
        signal?.addEventListener("abort", () => {
          timers.delete(timer);
          reject(signal.reason);
        }, { once: true });
      });
    },
    every(ms, tick) {
      const timer: Timer = {
        at: now + ms,
        fire() {
          timer.at += ms;
          timers.add(timer);
          tick();
        },
      };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const next = [...timers].filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
        if (next === undefined) break;
        timers.delete(next);
        now = next.at;
        next.fire();
      }
      now = until;
    },
    set(to) {
      const ms = typeof to === "number" ? to : to.getTime();
      if (ms >= now) clock.advance(ms - now);
      else now = ms;
    },
  };
  return clock;
}
