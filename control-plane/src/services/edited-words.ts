import type { EditedWord } from "@caption/shared/api/render-request";

// Word times copied from a transcript may end a rounding error past the video's duration (the recognizer
// counts audio samples, the duration comes from the packets): a millisecond of slack accepts them.
const DURATION_SLACK_SECONDS = 0.001;

/**
 * The rules on edited words that their schema cannot state: a visible text, `start ≤ end ≤ duration`,
 * and starts that never go back. Returns a message naming the first bad word, or null when all hold.
 */
export function editedWordsProblem(words: readonly EditedWord[], durationSeconds: number): string | null {
  let previousStart = 0;
  for (const [i, word] of words.entries()) {
    const at = `words[${i}]`;
    if (word.text.trim() === "") return `${at}.text must not be blank`;
    if (word.end < word.start) return `${at}.end must not be before ${at}.start (${word.end} < ${word.start})`;
    if (word.end > durationSeconds + DURATION_SLACK_SECONDS) return `${at}.end must be within the video's ${durationSeconds} s (got ${word.end})`;
    if (word.start < previousStart) return `${at}.start must not be before words[${i - 1}].start: words are in time order (${word.start} < ${previousStart})`;
    previousStart = word.start;
  }
  return null;
}
