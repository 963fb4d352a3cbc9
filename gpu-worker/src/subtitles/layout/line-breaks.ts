// How a cue's words are split into lines: at sentence punctuation first, then clause punctuation, then any
// word boundary; never one short word alone on a line where another split fits; then the most even lines.

/** A word that ends a sentence, closing quotes or brackets allowed after the mark. */
export const SENTENCE_END = /[.?!…。？！]["'”’»)\]]*$/u;
/** A word that ends a clause. */
export const CLAUSE_END = /[,;:—–]["'”’»)\]]*$/u;
/** At most this many letters or digits: a word that must not stand alone on a line (where it can be helped). */
export const SHORT_WORD_LETTERS = 3;
// Words a line should not end on: articles, prepositions, conjunctions bind to what follows.
const BINDS_FORWARD = new Set(["a", "an", "the", "to", "of", "in", "on", "at", "by", "for", "with", "from", "and", "or", "but", "if", "that", "my", "your", "his", "her", "our", "their", "its"]);

// Costs, each tier above everything the tiers below can add.
const AFTER_SENTENCE = 0;
const AFTER_CLAUSE = 10;
const AFTER_WORD = 20;
const BEFORE_BOUND_WORD = 3;
const IMBALANCE = 5;
const EXTRA_LINE = 25;
const LONE_SHORT_WORD = 100;

export interface LineBreaking {
  /** Index of the first word of each line after the first. */
  breaks: number[];
  cost: number;
}

const length = (text: string) => [...text].length;
export const isShortWord = (text: string) => text.replace(/[^\p{L}\p{N}]/gu, "").length <= SHORT_WORD_LETTERS;

/** The cost of ending a line after `text`. */
export function breakCost(text: string): number {
  if (SENTENCE_END.test(text)) return AFTER_SENTENCE;
  if (CLAUSE_END.test(text)) return AFTER_CLAUSE;
  return AFTER_WORD + (BINDS_FORWARD.has(text.toLowerCase()) ? BEFORE_BOUND_WORD : 0);
}

/**
 * The best lines for `texts` (one cue's words) within `maxChars` per line and `maxLines` lines: one line when
 * it fits. A word longer than a line stands alone on its own. Null when no split fits.
 */
export function breakLines(texts: readonly string[], maxChars: number, maxLines: number): LineBreaking | null {
  const n = texts.length;
  const lens = texts.map(length);
  // prefix[i]: characters of words 0..i-1 with a space after each.
  const prefix = [0];
  for (const len of lens) prefix.push(prefix.at(-1)! + len + 1);
  const lineChars = (from: number, to: number) => prefix[to]! - prefix[from]! - 1;
  const fits = (from: number, to: number) => lineChars(from, to) <= maxChars || to - from === 1;
  if (fits(0, n)) return { breaks: [], cost: 0 };

  let best: LineBreaking | null = null;
  const consider = (breaks: number[]) => {
    const bounds = [0, ...breaks, n];
    let cost = EXTRA_LINE * (breaks.length - 1);
    const sizes: number[] = [];
    for (let l = 0; l + 1 < bounds.length; l++) {
      const from = bounds[l]!;
      const to = bounds[l + 1]!;
      if (!fits(from, to)) return;
      sizes.push(lineChars(from, to));
      if (to - from === 1 && isShortWord(texts[from]!)) cost += LONE_SHORT_WORD;
      if (to < n) cost += breakCost(texts[to - 1]!);
    }
    cost += (IMBALANCE * (Math.max(...sizes) - Math.min(...sizes))) / maxChars;
    if (best === null || cost < best.cost) best = { breaks, cost };
  };
  for (let a = 1; a < n; a++) {
    if (maxLines >= 2) consider([a]);
    if (maxLines >= 3) for (let b = a + 1; b < n; b++) consider([a, b]);
  }
  return best;
}
