import type { Clock } from "../time/clock.ts";

/** A clock that stands still until the test moves it. */
export interface ManualClock extends Clock {
  /** Moves time on by `ms`, running the sleeps and ticks that fall due on the way, in time order. */
  advance(ms: number): void;
}

interface Timer {
  at: number;
  /** Runs the timer; an interval schedules itself again. */
  fire(): void;
}

export function manualClock(startMs = Date.UTC(2026, 0, 1)): ManualClock {
  let now = startMs;
  const timers = new Set<Timer>();
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
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
  };
}
