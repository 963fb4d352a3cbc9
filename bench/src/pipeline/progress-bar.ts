import { LiveLines, progressBar } from "@caption/shared/runtime/progress-bar";

function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** One status line: bar, percent, elapsed, an estimate of what is left (once there is a basis), the step. */
export function formatProgress(fraction: number, elapsedMs: number, label: string): string {
  const done = Math.min(1, Math.max(0, fraction));
  const left = done >= 0.02 && done < 1 ? `, ~${clock((elapsedMs / done) * (1 - done))} left` : "";
  return `${progressBar(done)} ${clock(elapsedMs)}${left}  ${label}`;
}

export interface PlannedStep {
  label: string;
  /** Expected share of the run, in any unit (e.g. estimated seconds). */
  weight: number;
}

/**
 * Progress over weighted steps on stderr: redrawn in place on a terminal, one line per step otherwise
 * (CI logs). `advance` moves within the current step.
 */
export class ProgressBar {
  readonly #steps: readonly PlannedStep[];
  readonly #total: number;
  readonly #stream: NodeJS.WriteStream;
  readonly #live: LiveLines;
  readonly #started = performance.now();
  #index = -1;
  #within = 0;

  constructor(steps: readonly PlannedStep[], stream: NodeJS.WriteStream = process.stderr) {
    this.#steps = steps;
    this.#total = steps.reduce((sum, step) => sum + step.weight, 0) || 1;
    this.#stream = stream;
    this.#live = new LiveLines(stream, { minIntervalMs: 250 });
  }

  /** Starts the step with this label (steps may be started out of order or skipped). */
  start(label: string): void {
    this.#index = this.#steps.findIndex((step) => step.label === label);
    this.#within = 0;
    this.#draw(true);
  }

  advance(fraction: number): void {
    this.#within = Math.min(1, Math.max(this.#within, fraction));
    this.#draw(false);
  }

  finish(): void {
    this.#index = this.#steps.length;
    this.#draw(true);
  }

  #fraction(): number {
    const before = this.#steps.slice(0, Math.max(0, this.#index)).reduce((sum, step) => sum + step.weight, 0);
    const current = this.#steps[this.#index]?.weight ?? 0;
    return (before + current * this.#within) / this.#total;
  }

  #draw(newStep: boolean): void {
    const label = this.#steps[this.#index]?.label ?? "done";
    const line = formatProgress(this.#fraction(), performance.now() - this.#started, label);
    if (this.#stream.isTTY) this.#live.draw([line], newStep);
    else if (newStep) this.#stream.write(`${line}\n`);
  }
}
