import type { JobStatus } from "@caption/shared/api/job";
import { finishedStageLines, initialProgress, progressBars, redraw, withJobEvent, withUpload, type ProgressState } from "./progress-view.ts";

/** How the command talks while it works: bars on a terminal, plain lines in a log, nothing with --json. */
export type ReporterMode = "tty" | "plain" | "quiet";

const REDRAW_MS = 100;
const TICK_MS = 250;

/**
 * Keeps what the run has heard and shows it on `stream` (stderr: stdout carries the result). On a terminal the
 * bars are redrawn in place at most every 100 ms, and every 250 ms for the running clock.
 */
export class ProgressReporter {
  readonly #stream: NodeJS.WritableStream & { columns?: number };
  readonly #mode: ReporterMode;
  readonly #now: () => number;
  #state: ProgressState = initialProgress();
  #drawn = 0;
  #lastDraw = -Infinity;
  #ticker: NodeJS.Timeout | undefined;

  constructor(stream: NodeJS.WritableStream & { columns?: number }, mode: ReporterMode, now: () => number = () => performance.now()) {
    this.#stream = stream;
    this.#mode = mode;
    this.#now = now;
  }

  /** A line of its own (above the bars on a terminal). */
  note(line: string): void {
    if (this.#mode === "quiet") return;
    if (this.#mode === "tty") {
      this.#stream.write(redraw(this.#drawn, [line]));
      this.#drawn = 0;
      this.#draw(true);
    } else this.#stream.write(`${line}\n`);
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
    const now = this.#now();
    if (!force && now - this.#lastDraw < REDRAW_MS) return;
    this.#lastDraw = now;
    const lines = progressBars(this.#state, now, this.#stream.columns || 80);
    this.#stream.write(redraw(this.#drawn, lines));
    this.#drawn = lines.length;
  }
}
