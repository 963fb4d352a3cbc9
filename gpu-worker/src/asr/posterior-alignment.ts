import type { Word } from "@caption/shared/api/transcript";

/** One `-ctm` line: a word of the lattice's best path, its start (seconds from the utterance start) and its posterior. */
export interface Posterior {
  start: number;
  word: string;
  confidence: number;
}

/** A word left without a confidence, by its place in the utterance (never its text: the words are the customer's). */
export interface UnmatchedWord {
  index: number;
  start: number;
  reason: "no posterior" | "posterior out of order" | "posterior at another time" | "posterior out of range";
  /** The posterior line's value, or its start's distance from the word's in seconds, where the reason has one. */
  detail?: number;
}

/** The `-ctm` and `-hypseg` lines print the same frames, one as seconds to two places and one as a frame count. */
const SAME_START_SECONDS = 0.015;
/**
 * Lattice posteriors come out of integer log arithmetic (base 1.0001) and land a hair above 1 on certain words:
 * 1.001 is ten log units of rounding. Within this much they are taken as 1; further out the line is not trusted.
 */
const POSTERIOR_ROUNDING = 0.01;

/**
 * Gives each word the posterior of the `-ctm` line aligned with it: the longest run of lines and words that agree
 * (same word, same start), kept in order, so a line missing, added or different costs the words around it nothing.
 * Words without one keep no confidence, and say why.
 */
export function alignPosteriors(words: readonly Word[], posteriors: readonly Posterior[]): { words: Word[]; unmatched: UnmatchedWord[] } {
  const pairs = longestAgreement(words, posteriors);
  const unmatched: UnmatchedWord[] = [];
  const aligned = words.map((word, index): Word => {
    const posterior = pairs.get(index);
    if (posterior === undefined) {
      unmatched.push(missing(word, index, posteriors, new Set(pairs.values())));
      return word;
    }
    const confidence = trusted(posterior.confidence);
    if (confidence === undefined) {
      unmatched.push({ index, start: word.start, reason: "posterior out of range", detail: posterior.confidence });
      return word;
    }
    return { ...word, confidence };
  });
  return { words: aligned, unmatched };
}

function agree(word: Word, posterior: Posterior): boolean {
  return posterior.word === word.text && Math.abs(posterior.start - word.start) < SAME_START_SECONDS;
}

function trusted(value: number): number | undefined {
  if (!Number.isFinite(value) || value < 0 || value > 1 + POSTERIOR_ROUNDING) return undefined;
  return Math.min(1, value);
}

/** Why a word got no line: its line left over out of order, a line of its word at another time, or none at all. */
function missing(word: Word, index: number, posteriors: readonly Posterior[], used: ReadonlySet<Posterior>): UnmatchedWord {
  const left = posteriors.filter((p) => !used.has(p) && p.word === word.text);
  if (left.some((p) => agree(word, p))) return { index, start: word.start, reason: "posterior out of order" };
  if (left.length === 0) return { index, start: word.start, reason: "no posterior" };
  const nearest = left.map((p) => p.start - word.start).reduce((a, b) => (Math.abs(b) < Math.abs(a) ? b : a));
  return { index, start: word.start, reason: "posterior at another time", detail: Math.round(nearest * 1000) / 1000 };
}

/** Word index → its line, over a longest common subsequence of the two (n·m cells: an utterance has a few hundred words at most). */
function longestAgreement(words: readonly Word[], posteriors: readonly Posterior[]): Map<number, Posterior> {
  const n = words.length;
  const m = posteriors.length;
  // lengths[i * (m + 1) + j]: the longest agreement of words[i..] and posteriors[j..].
  const lengths = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => lengths[i * (m + 1) + j]!;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * (m + 1) + j] = agree(words[i]!, posteriors[j]!) ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const pairs = new Map<number, Posterior>();
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (agree(words[i]!, posteriors[j]!) && at(i, j) === at(i + 1, j + 1) + 1) {
      pairs.set(i++, posteriors[j++]!);
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      i++;
    } else {
      j++;
    }
  }
  return pairs;
}
