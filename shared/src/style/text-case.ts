import type { TEXT_CASES } from "../api/style.ts";

export type TextCase = (typeof TEXT_CASES)[number];

// A word's first letter: after the start or whitespace, past leading punctuation such as quotes or brackets.
const WORD_FIRST_LETTER = /(^|\s)([^\s\p{L}\p{N}]*)(\p{L})/gu;

/** Casing as drawn on the video; transcripts and SRT keep the original words. */
export function applyTextCase(text: string, textCase: TextCase): string {
  switch (textCase) {
    case "none":
      return text;
    case "uppercase":
      return text.toUpperCase();
    case "lowercase":
      return text.toLowerCase();
    case "capitalize":
      return text.replace(WORD_FIRST_LETTER, (_match, before: string, punctuation: string, letter: string) => before + punctuation + letter.toUpperCase());
  }
}
