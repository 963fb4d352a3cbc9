import type { EditedWord } from "@caption/shared/api/render-request";

// Word times copied from a transcript may end a rounding error past the video's duration (the recognizer
// counts audio samples, the duration comes from the packets): a millisecond of slack accepts them.
const DURATION_SLACK_SECONDS = 0.001;

/**
 * The schema's verdict on one word (type, fields, length, characters): null when it is an EditedWord,
 * else the message naming the word, e.g. `words[3].text must be at most 100 characters`. The HTTP
 * layer supplies it, as it words every schema error.
 */
export type WordShapeCheck = (word: unknown, index: number) => string | null;

/**
 * Checks the words one by one, each against every rule before the next word: its shape, a visible
 * text, `start ≤ end ≤ duration`, and a start not before the previous word's. Returns the words, or
 * the message naming the first bad word whatever rule it breaks (a bad words[1].start is reported
 * ahead of a bad words[5].text).
 */
export function checkEditedWords(
  words: readonly unknown[],
  durationSeconds: number,
  shapeProblem: WordShapeCheck,
): { words: EditedWord[] } | { problem: string } {
  let previousStart = 0;
  for (const [i, value] of words.entries()) {
    const shape = shapeProblem(value, i);
    if (shape !== null) return { problem: shape };
    const word = value as EditedWord;
    const at = `words[${i}]`;
    if (word.text.trim() === "") return { problem: `${at}.text must not be blank` };
    if (word.end < word.start) return { problem: `${at}.end must not be before ${at}.start (${word.end} < ${word.start})` };
    if (word.end > durationSeconds + DURATION_SLACK_SECONDS) return { problem: `${at}.end must be within the video's ${durationSeconds} s (got ${word.end})` };
    if (word.start < previousStart) return { problem: `${at}.start must not be before words[${i - 1}].start: words are in time order (${word.start} < ${previousStart})` };
    previousStart = word.start;
  }
  return { words: words as EditedWord[] };
}
