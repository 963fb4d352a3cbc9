import type { ProfanityMode } from "@caption/shared/api/custom-words";
import { bareKey, splitPunctuation, type PassedWord } from "./passed-word.ts";

/** The words `profanity: "mask"` masks (docs/vocabulary.md lists them): common English swear words and their forms. */
export const PROFANITY = new Set([
  "fuck", "fucks", "fucked", "fucker", "fuckers", "fucking", "fuckin", "motherfucker", "motherfuckers", "motherfucking",
  "shit", "shits", "shitty", "shitting", "bullshit", "horseshit",
  "bitch", "bitches", "bitching", "bastard", "bastards",
  "asshole", "assholes", "arsehole", "arseholes", "dick", "dickhead", "dickheads",
  "cunt", "cunts", "cock", "cocks", "cocksucker", "pussy", "pussies",
  "piss", "pissed", "pissing", "wanker", "wankers", "twat", "twats", "bollocks", "prick", "pricks",
  "slut", "sluts", "whore", "whores", "goddamn", "goddamned",
]);

/** The word with every letter after its first masked by asterisks, punctuation kept. */
export function mask(text: string): string {
  const { before, bare, after } = splitPunctuation(text);
  const [first = "", ...rest] = [...bare];
  return before + first + rest.map((c) => (/[\p{L}\p{N}]/u.test(c) ? "*" : c)).join("") + after;
}

/** With `mask`, each listed word keeps its first letter; with `keep`, the words as they are. */
export function applyProfanity(words: readonly PassedWord[], mode: ProfanityMode): PassedWord[] {
  if (mode === "keep") return [...words];
  return words.map((word) => (PROFANITY.has(bareKey(word.text)) ? { ...word, text: mask(word.text), original: word.original ?? word.text } : word));
}
