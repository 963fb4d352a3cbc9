import type { EditedWord, QualityReport, Transcript } from "../api/types.ts";

// The word editor's operations, pure: each returns new words, keeping what a render request requires (text not
// blank, start ≤ end ≤ the video's duration, starts in time order), so an edit can never make a body the API refuses.

export type WordFlag = "low_confidence" | "no_speech" | "vocabulary";

export interface EditorWord extends EditedWord {
  /** What the quality report says of the word as recognised; an edited word has none. */
  flags: readonly WordFlag[];
}

/** How far one nudge moves a word's start or end. */
export const NUDGE_SECONDS = 0.05;
/** A new word's length, where there is room for it. */
const NEW_WORD_SECONDS = 0.3;

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** The transcript's words, with the report's flags where its words are the same ones (same text and start). */
export function editorWords(transcript: Transcript, report: QualityReport | null): EditorWord[] {
  return transcript.words.map((word, i) => {
    const reported = report?.words[i];
    const same = reported && reported.text === word.text && Math.abs(reported.start - word.start) < 0.001;
    return { text: word.text, start: word.start, end: word.end, flags: same ? reported.flags : [] };
  });
}

/** The words as a render request sends them. */
export const requestWords = (words: readonly EditorWord[]): EditedWord[] => words.map(({ text, start, end }) => ({ text, start, end }));

/** Parts of `text` sharing [start, end] by their length: a word typed as several becomes several. */
function spread(parts: readonly string[], start: number, end: number): EditorWord[] {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  let at = start;
  return parts.map((text, i) => {
    const until = i === parts.length - 1 ? end : round(at + ((end - start) * text.length) / total);
    const word = { text, start: round(at), end: until, flags: [] };
    at = until;
    return word;
  });
}

/** Word `i` with new text (several words when it holds spaces); blank text is refused. */
export function replaceText(words: readonly EditorWord[], i: number, text: string): EditorWord[] | { problem: string } {
  const parts = text.split(/\s+/u).filter((part) => part.length > 0);
  if (parts.length === 0) return { problem: "A word cannot be blank: use Delete word to remove it" };
  const word = words[i]!;
  if (parts.length === 1 && parts[0] === word.text) return [...words];
  return [...words.slice(0, i), ...spread(parts, word.start, word.end), ...words.slice(i + 1)];
}

export const removeWord = (words: readonly EditorWord[], i: number): EditorWord[] => words.filter((_, at) => at !== i);

/** A new word after word `i`, in the gap before the next one (or from the same instant when there is none). */
export function insertAfter(words: readonly EditorWord[], i: number, text: string, duration: number): EditorWord[] {
  const word = words[i]!;
  const next = words[i + 1];
  const start = round(next ? Math.min(word.end, next.start) : Math.min(word.end, duration));
  const end = round(Math.max(start, Math.min(next ? Math.max(next.start, start) : duration, start + NEW_WORD_SECONDS)));
  return [...words.slice(0, i + 1), { text, start, end, flags: [] }, ...words.slice(i + 1)];
}

/** Word `i` as two: at its first space, else in the middle of its letters. */
export function splitWord(words: readonly EditorWord[], i: number): EditorWord[] {
  const { text, start, end } = words[i]!;
  if (text.length < 2) return [...words];
  const space = text.search(/\s/u);
  const cut = space > 0 ? space : Math.ceil(text.length / 2);
  const parts = [text.slice(0, cut).trim(), text.slice(cut).trim()].filter((part) => part.length > 0);
  return [...words.slice(0, i), ...spread(parts, start, end), ...words.slice(i + 1)];
}

/** Word `i` and the next as one, over both their times. */
export function mergeWithNext(words: readonly EditorWord[], i: number): EditorWord[] {
  const word = words[i]!;
  const next = words[i + 1];
  if (!next) return [...words];
  const merged = { text: `${word.text} ${next.text}`, start: word.start, end: Math.max(word.end, next.end), flags: [] };
  return [...words.slice(0, i), merged, ...words.slice(i + 2)];
}

/** Word `i`'s start or end moved by `delta`, kept between its neighbours' starts, its own other edge and the video. */
export function nudge(words: readonly EditorWord[], i: number, edge: "start" | "end", delta: number, duration: number): EditorWord[] {
  const word = words[i]!;
  const moved = { ...word };
  if (edge === "start") {
    const earliest = i > 0 ? words[i - 1]!.start : 0;
    const latest = Math.min(word.end, words[i + 1]?.start ?? Infinity);
    moved.start = round(Math.max(earliest, Math.min(latest, word.start + delta)));
  } else {
    moved.end = round(Math.max(word.start, Math.min(duration, word.end + delta)));
  }
  return words.map((each, at) => (at === i ? moved : each));
}

/** The word being spoken at `seconds` (the last that has started and not ended), or -1. */
export function wordAt(words: readonly EditedWord[], seconds: number): number {
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i]!;
    if (word.start <= seconds && seconds < Math.max(word.end, word.start + 0.05)) return i;
    if (word.end < seconds && word.start < seconds) break;
  }
  return -1;
}

/** `m:ss.s`, as the editor shows times. */
export function clock(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${(seconds - minutes * 60).toFixed(1).padStart(4, "0")}`;
}
