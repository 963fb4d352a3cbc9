import type { Word } from "@caption/shared/api/transcript";

/** The part of a sherpa-onnx offline result that words are built from. Times are seconds into the segment. */
export interface TimedTokens {
  tokens: readonly string[];
  /** Start of each token; empty when the model gives none. */
  timestamps: readonly number[];
  /** Duration of each token (transducers with durations, e.g. TDT); often empty. */
  durations?: readonly number[];
  /** Natural log of the probability the model gave each token it chose (`ys_log_probs`); empty where it gives none. */
  logProbs?: readonly number[];
}

export interface SegmentSpan {
  /** Absolute seconds. */
  start: number;
  end: number;
}

// sentencepiece marks a word start with U+2581; byte-level BPE vocabularies with a space.
const WORD_START = /^[\u2581 ]/;
// <unk>, <blk>, <|en|>, <0xE4>: control and byte-fallback pieces carry no text of their own.
const SPECIAL = /^<[^<>]*>$/;
// Scripts written without spaces: every character is a word of its own for captions.
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+$/u;
// Punctuation belongs to the word before it.
const PUNCTUATION = /^[\p{P}\p{S}]+$/u;

interface Draft {
  text: string;
  start: number;
  /** End of its last piece when the model gave a duration. */
  end?: number;
  /** Written without spaces: nothing but punctuation joins it. */
  unspaced: boolean;
  /** Sum and count of its pieces' log probabilities. */
  logProb: number;
  pieces: number;
}

const ms = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * Merges sub-word pieces into words with absolute times: a word starts at its first piece; it ends
 * where its last piece's duration says, else where the next word starts, else at the segment end.
 * Times are clamped into the segment and made monotonic. Without timestamps the words share the
 * segment in proportion to their length.
 */
export function tokensToWords(result: TimedTokens, segment: SegmentSpan): Word[] {
  const timed = result.timestamps.length === result.tokens.length && result.tokens.length > 0;
  const durations = result.durations?.length === result.tokens.length ? result.durations : undefined;
  const logProbs = result.logProbs?.length === result.tokens.length ? result.logProbs : undefined;
  const drafts: Draft[] = [];
  let current: Draft | undefined;
  let previousStart = segment.start;

  for (const [i, token] of result.tokens.entries()) {
    if (SPECIAL.test(token)) continue;
    const offset = timed ? (result.timestamps[i] ?? 0) : 0;
    const at = Math.min(Math.max(segment.start + offset, previousStart), segment.end);
    previousStart = at;
    const unspaced = UNSPACED.test(token);
    const joins = current !== undefined && !WORD_START.test(token) && (PUNCTUATION.test(token) || !(unspaced || current.unspaced));
    if (!current || !joins) {
      current = { text: "", start: at, unspaced, logProb: 0, pieces: 0 };
      drafts.push(current);
    }
    current.text += token.replace(WORD_START, "");
    current.logProb += logProbs?.[i] ?? 0;
    current.pieces += 1;
    const duration = durations?.[i];
    current.end = duration !== undefined && duration > 0 ? at + duration : undefined;
  }

  const words: Draft[] = [];
  for (const draft of drafts) {
    const text = draft.text.trim();
    const last = words.at(-1);
    if (text === "") continue;
    if (last && PUNCTUATION.test(text)) {
      last.text += text;
      last.logProb += draft.logProb;
      last.pieces += draft.pieces;
    } else words.push({ ...draft, text });
  }
  // A word's confidence: the geometric mean of its pieces' probabilities. With hotwords, sherpa-onnx's log
  // probabilities include the hotword bonus and may exceed 0: a boosted term reads as certain.
  const confidence = (draft: Draft) =>
    logProbs === undefined || draft.pieces === 0 ? {} : { confidence: Math.min(1, Math.round(Math.exp(draft.logProb / draft.pieces) * 1000) / 1000) };
  if (!timed) return spreadOver(words.map((d) => d.text), segment).map((word, i) => ({ ...word, ...confidence(words[i]!) }));
  return words.map((draft, i) => {
    const next = words[i + 1]?.start ?? segment.end;
    const end = Math.max(draft.start, Math.min(draft.end ?? next, next, segment.end));
    return { text: draft.text, start: ms(draft.start), end: ms(end), ...confidence(draft) };
  });
}

function spreadOver(texts: string[], segment: SegmentSpan): Word[] {
  const total = texts.reduce((sum, text) => sum + text.length, 0);
  const span = segment.end - segment.start;
  let cursor = 0;
  return texts.map((text) => {
    const start = segment.start + (span * cursor) / total;
    cursor += text.length;
    return { text, start: ms(start), end: ms(segment.start + (span * cursor) / total) };
  });
}
