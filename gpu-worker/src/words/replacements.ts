import type { Replacements } from "@caption/shared/api/custom-words";
import { bareKey, replaceSpan, splitPunctuation, type PassedWord } from "./passed-word.ts";

/**
 * Applies the customer's replacements: whole words (or phrases of whole words) matched regardless of case and
 * punctuation, written in the case of what they replace (all capitals, a capital first letter, or as given);
 * an empty replacement removes the words. Longer phrases win at a position.
 */
export function applyReplacements(words: readonly PassedWord[], replacements: Replacements): PassedWord[] {
  const rules = Object.entries(replacements)
    .map(([from, to]) => ({ from: from.split(/\s+/u).map(bareKey).filter(Boolean), to: to.split(/\s+/u).filter(Boolean) }))
    .filter((rule) => rule.from.length > 0)
    .sort((a, b) => b.from.length - a.from.length);
  if (rules.length === 0) return [...words];
  const out: PassedWord[] = [];
  for (let i = 0; i < words.length; ) {
    const rule = rules.find((r) => r.from.every((key, k) => words[i + k] !== undefined && bareKey(words[i + k]!.text) === key));
    if (!rule) {
      out.push(words[i]!);
      i++;
      continue;
    }
    const span = words.slice(i, i + rule.from.length);
    out.push(...replaceSpan(span, inCaseOf(span.map((w) => splitPunctuation(w.text).bare).join(" "), rule.to)));
    i += rule.from.length;
  }
  return out;
}

/** `words` written as `original` is: all capitals, a capital first letter, or as given. */
export function inCaseOf(original: string, words: readonly string[]): string[] {
  const letters = original.replace(/[^\p{L}]/gu, "");
  if (letters.length > 1 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return words.map((w) => w.toUpperCase());
  const first = letters.charAt(0);
  if (first !== "" && first === first.toUpperCase() && first !== first.toLowerCase() && words.length > 0) {
    return [words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1), ...words.slice(1)];
  }
  return [...words];
}
