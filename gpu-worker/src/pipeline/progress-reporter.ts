import type { Db } from "@caption/shared/db/database";
import type { Clock } from "@caption/shared/time/clock";
import { advanceJob } from "@caption/shared/jobs/job-lifecycle";

const MIN_INTERVAL_MS = 1000;

export interface ProgressReporter {
  report(progress: number): Promise<void>;
  /** Reports `fraction` (0..1) of the way through a stage's [from, to] band; throttled, fire-and-forget. */
  reportWithin(band: readonly [number, number], fraction: number): void;
}

/** Writes progress at most once a second; the database keeps it monotonic. */
export function progressReporter(db: Db, jobId: string, clock: Pick<Clock, "now">): ProgressReporter {
  let lastWrite = 0;
  let inFlight = false;
  const write = async (progress: number) => {
    lastWrite = clock.now();
    await advanceJob(db, jobId, { progress: Math.round(progress * 10) / 10 });
  };
  return {
    report: write,
    reportWithin([from, to], fraction) {
      if (inFlight || clock.now() - lastWrite < MIN_INTERVAL_MS) return;
      inFlight = true;
      write(from + (to - from) * Math.max(0, Math.min(1, fraction)))
        .catch(() => undefined)
        .finally(() => (inFlight = false));
    },
  };
}
