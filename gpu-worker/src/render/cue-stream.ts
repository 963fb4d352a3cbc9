import type { Word } from "@caption/shared/api/transcript";
import { buildCues, cleanWords, DEFAULT_LINGER_SECONDS, DEFAULT_MAX_PAUSE_SECONDS, type Cue, type CueBuildOptions, type CueWord } from "./cue-builder.ts";

/**
 * The cue builder fed as recognition goes: each cue is handed out once nothing that is still to be
 * recognised can change it, and the cues handed out are exactly those `buildCues` makes of all the words.
 *
 * That holds because `buildCues` scans words in time order and starts every cue afresh: a cue is settled
 * by the first word of the next one (which closes it and bounds its end), or by a silence longer than the
 * pause that ends a cue, and no later word starts before the recognition horizon.
 */
export class CueStream {
  readonly #options: CueBuildOptions;
  // Words of the cues not yet handed out, cleaned and in order.
  #pending: CueWord[] = [];
  readonly #lookAhead: number;

  constructor(options: CueBuildOptions) {
    this.#options = options;
    this.#lookAhead = Math.max(options.maxPauseSeconds ?? DEFAULT_MAX_PAUSE_SECONDS, options.lingerSeconds ?? DEFAULT_LINGER_SECONDS);
  }

  /**
   * Words recognised since the last call, and the horizon: how far the audio has been recognised (no word
   * still to come starts before it). Returns the cues that became final, in order.
   */
  add(words: readonly Word[], horizon: number): Cue[] {
    this.#pending.push(...cleanWords(words));
    const cues = buildCues(this.#pending, this.#options);
    const last = cues.at(-1);
    // Past the look-ahead after its last word, the next word can only start a new cue after a long pause.
    const lastSettled = last !== undefined && horizon - lastWordEnd(last) > this.#lookAhead;
    return this.#handOut(lastSettled ? cues : cues.slice(0, -1));
  }

  /** The end of the audio: the cues still held. */
  finish(): Cue[] {
    return this.#handOut(buildCues(this.#pending, this.#options));
  }

  #handOut(cues: Cue[]): Cue[] {
    const words = cues.reduce((sum, cue) => sum + cue.lines.reduce((n, line) => n + line.words.length, 0), 0);
    this.#pending = this.#pending.slice(words);
    return cues;
  }
}

const lastWordEnd = (cue: Cue): number => cue.lines.at(-1)?.words.at(-1)?.end ?? cue.end;
