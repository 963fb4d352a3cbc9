// The one progress bar of every command that shows one (the caption command's stages, the benchmarks' steps):
// the bar itself, and lines redrawn in place on a terminal.

const BAR_WIDTH = 30;

/** `[#########---------------------]  30%`: `fraction` (0 to 1) as a bar and a whole percent. */
export function progressBar(fraction: number): string {
  const done = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(done * BAR_WIDTH);
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${String(Math.floor(done * 100)).padStart(3)}%`;
}

/** What to write to a terminal to replace the `drawn` lines written before with `lines`. */
export function redraw(drawn: number, lines: readonly string[]): string {
  const up = drawn > 0 ? `\x1b[${drawn}F` : "";
  const cleared = lines.map((line) => `\x1b[2K${line}\n`).join("");
  // Lines left over from a longer drawing are cleared too.
  const leftover = drawn > lines.length ? "\x1b[2K\n".repeat(drawn - lines.length) + `\x1b[${drawn - lines.length}F` : "";
  return `${up}${cleared}${leftover}`;
}

type Terminal = NodeJS.WritableStream & { columns?: number };

/**
 * Lines kept on a terminal and redrawn in place, each cut to its width, at most every `minIntervalMs`
 * unless forced; a note goes above them and stays.
 */
export class LiveLines {
  readonly #stream: Terminal;
  readonly #now: () => number;
  readonly #minIntervalMs: number;
  #drawn = 0;
  #lines: readonly string[] = [];
  #lastDraw = -Infinity;

  constructor(stream: Terminal, options: { now?: () => number; minIntervalMs?: number } = {}) {
    this.#stream = stream;
    this.#now = options.now ?? (() => performance.now());
    this.#minIntervalMs = options.minIntervalMs ?? 100;
  }

  /** Shows `lines` in place of the last ones; skipped when the last drawing is too recent, unless `force`. */
  draw(lines: readonly string[], force = true): void {
    this.#lines = lines;
    const now = this.#now();
    if (!force && now - this.#lastDraw < this.#minIntervalMs) return;
    this.#lastDraw = now;
    const width = Math.max(2, this.#stream.columns || 80);
    this.#stream.write(redraw(this.#drawn, lines.map((line) => line.slice(0, width - 1))));
    this.#drawn = lines.length;
  }

  /** A line above the live ones, kept when they are redrawn. */
  note(line: string): void {
    this.#stream.write(redraw(this.#drawn, [line]));
    this.#drawn = 0;
    this.draw(this.#lines);
  }
}
