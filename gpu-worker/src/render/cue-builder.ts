import { Type, type Static } from "@sinclair/typebox";
import { WordSchema, type Word } from "@caption/shared/api/transcript";

export const CueWordSchema = Type.Pick(WordSchema, ["text", "start", "end"]);
export type CueWord = Static<typeof CueWordSchema>;

export const CueLineSchema = Type.Object({ words: Type.Array(CueWordSchema) }, { additionalProperties: false });
export type CueLine = Static<typeof CueLineSchema>;

/** What is on screen from `start` to `end` (seconds): lines of the transcript's original words. */
export const CueSchema = Type.Object(
  { start: Type.Number({ minimum: 0 }), end: Type.Number({ minimum: 0 }), lines: Type.Array(CueLineSchema) },
  { additionalProperties: false, $id: "Cue" },
);
export type Cue = Static<typeof CueSchema>;

export interface CueBuildOptions {
  /** Style `line_count`: 0 = one word per cue, otherwise the most lines a cue may hold. */
  lineCount: number;
  /** Width in pixels a line may take. */
  maxLineWidth: number;
  /** Pixel width of a line's text as drawn (font, size and text case applied by the caller). */
  measure: (text: string) => number;
  /** A silence longer than this (seconds) ends a cue. */
  maxPauseSeconds?: number;
  /** No cue lasts longer than this (seconds). */
  maxCueSeconds?: number;
  /** How long (seconds) a cue stays up after its last word when the next cue is not close. */
  lingerSeconds?: number;
  /** Cue ends never run past this (seconds): the video's duration. */
  endLimit?: number;
}

export const DEFAULT_MAX_PAUSE_SECONDS = 0.6;
export const DEFAULT_MAX_CUE_SECONDS = 7;
export const DEFAULT_LINGER_SECONDS = 0.3;

// A word ending a sentence, allowing closing quotes or brackets after the mark.
const SENTENCE_END = /[.?!…。？！]["'”’»)\]]*$/u;

/** Groups timed words into cues: lines wrapped by measured width, cues cut at pauses, sentence ends and the duration cap. */
export function buildCues(words: readonly Word[], options: CueBuildOptions): Cue[] {
  const maxPause = options.maxPauseSeconds ?? DEFAULT_MAX_PAUSE_SECONDS;
  const maxCue = options.maxCueSeconds ?? DEFAULT_MAX_CUE_SECONDS;
  const linger = options.lingerSeconds ?? DEFAULT_LINGER_SECONDS;
  const endLimit = options.endLimit ?? Number.POSITIVE_INFINITY;
  const clean = cleanWords(words);

  const groups: CueWord[][][] = [];
  let lines: CueWord[][] = [];
  let line: CueWord[] = [];
  const closeCue = () => {
    if (line.length > 0) lines.push(line);
    if (lines.length > 0) groups.push(lines);
    lines = [];
    line = [];
  };

  for (let i = 0; i < clean.length; i++) {
    const word = clean[i]!;
    const previous = clean[i - 1];
    const cueStart = lines[0]?.[0]?.start ?? line[0]?.start;
    const mustBreak =
      previous !== undefined &&
      (options.lineCount === 0 ||
        word.start - previous.end > maxPause ||
        SENTENCE_END.test(previous.text) ||
        (cueStart !== undefined && word.end - cueStart > maxCue));
    if (mustBreak) closeCue();

    if (line.length > 0 && options.measure(lineText([...line, word])) > options.maxLineWidth) {
      lines.push(line);
      line = [];
      if (lines.length >= options.lineCount) closeCue();
    }
    line.push(word);
  }
  closeCue();

  const cues = groups.map((group): Cue => {
    const first = group[0]![0]!;
    const last = group.at(-1)!.at(-1)!;
    return { start: first.start, end: last.end, lines: group.map((words) => ({ words })) };
  });
  return settleTimes(cues, { maxPause, maxCue, linger, endLimit });
}

export function lineText(words: readonly { text: string }[]): string {
  return words.map((w) => w.text).join(" ");
}

/** Words as cues hold them: trimmed, spaces collapsed, empty ones dropped, in time order. */
export function cleanWords(words: readonly Word[]): CueWord[] {
  return words
    .map((w) => ({ text: w.text.trim().replace(/\s+/gu, " "), start: w.start, end: Math.max(w.start, w.end) }))
    .filter((w) => w.text.length > 0)
    .sort((a, b) => a.start - b.start);
}

/** Bridges short gaps so captions do not flicker, lets others linger briefly, and keeps cues apart and capped. */
function settleTimes(cues: Cue[], o: { maxPause: number; maxCue: number; linger: number; endLimit: number }): Cue[] {
  const settled: Cue[] = [];
  for (let i = 0; i < cues.length; i++) {
    const cue = cues[i]!;
    const nextStart = cues[i + 1]?.start ?? Number.POSITIVE_INFINITY;
    const gap = nextStart - cue.end;
    let end = gap <= o.maxPause ? nextStart : cue.end + o.linger;
    end = Math.min(end, nextStart, cue.start + o.maxCue, o.endLimit);
    const start = Math.min(cue.start, o.endLimit);
    settled.push({ ...cue, start, end: Math.max(start, end) });
  }
  return settled;
}
