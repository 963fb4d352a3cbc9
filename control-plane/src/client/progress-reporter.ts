import type { JobStatus } from "@caption/shared/api/job";
import { LiveLines } from "@caption/shared/runtime/progress-bar";
import { finishedStageLines, initialProgress, progressBars, withJobEvent, withUpload, type ProgressState } from "./progress-view.ts";

/** How the command talks while it works: bars on a terminal, plain lines in a log, nothing with --json. */
export type ReporterMode = "tty" | "plain" | "quiet";

const TICK_MS = 250;

/**
 * Keeps what the run has heard and shows it on `stream` (stderr: stdout carries the result). On a terminal the
 * bars are redrawn in place at most every 100 ms, and every 250 ms for the running clock.
 */
export class ProgressReporter {
  readonly #stream: NodeJS.WritableStream & { columns?: number };
  readonly #mode: ReporterMode;
  readonly #now: () => number;
  readonly #live: LiveLines;
  #state: ProgressState = initialProgress();
  #ticker: NodeJS.Timeout | undefined;

  constructor(stream: NodeJS.WritableStream & { columns?: number }, mode: ReporterMode, now: () => number = () => performance.now()) {
    this.#stream = stream;
    this.#mode = mode;
    this.#now = now;
    this.#live = new LiveLines(stream, { now });
  }

  /** A line of its own (above the bars on a terminal). */
  note(line: string): void {
    if (this.#mode === "quiet") return;
    if (this.#mode === "tty") this.#live.note(line);
    else this.#stream.write(`${line}\n`);
  }

  upload(sent: number, total: number): void {
    this.#update(withUpload(this.#state, sent, total, this.#now()));
  }

  job(status: JobStatus, progress: number): void {
    this.#update(withJobEvent(this.#state, status, progress, this.#now()));
  }

  /** The last drawing, and no more redraws. */
  stop(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
    if (this.#mode === "tty") this.#draw(true);
  }

  #update(next: ProgressState): void {
    const before = this.#state;
    this.#state = next;
    if (this.#mode === "plain") {
      for (const line of finishedStageLines(before, next)) this.#stream.write(`${line}\n`);
      return;
    }
    if (this.#mode !== "tty") return;
    this.#ticker ??= setInterval(() => this.#draw(true), TICK_MS).unref();
    this.#draw(false);
  }

  #draw(force: boolean): void {
    this.#live.draw(progressBars(this.#state, this.#now()), force);
  }
}
