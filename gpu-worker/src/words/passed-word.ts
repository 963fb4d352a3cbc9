import type { AnnotatedWord } from "@caption/shared/api/quality-report";

/** A word after the post-pass, with what it replaced (the quality report keeps the original). */
export type PassedWord = AnnotatedWord;

const EDGE = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/su;

/** A word's text split into leading punctuation, the bare word, trailing punctuation. */
export function splitPunctuation(text: string): { before: string; bare: string; after: string } {
  const [, before = "", bare = "", after = ""] = EDGE.exec(text) ?? [];
  return { before, bare, after };
}

/** How words are compared: their bare text in lower case. */
export const bareKey = (text: string): string => splitPunctuation(text).bare.toLowerCase();

/**
 * `texts` in place of `span`: the span's time shared among them by length, its leading and trailing punctuation
 * kept, the lowest confidence of the span, and the original text.
 */
export function replaceSpan(span: readonly PassedWord[], texts: readonly string[], mark: Partial<PassedWord> = {}): PassedWord[] {
  if (texts.length === 0 || span.length === 0) return [];
  const start = span[0]!.start;
  const end = Math.max(start, ...span.map((w) => w.end));
  const { before } = splitPunctuation(span[0]!.text);
  const { after } = splitPunctuation(span.at(-1)!.text);
  const confidences = span.flatMap((w) => (w.confidence === undefined ? [] : [w.confidence]));
  const original = span.map((w) => w.original ?? w.text).join(" ");
  const total = texts.reduce((sum, t) => sum + Math.max(1, t.length), 0);
  let at = 0;
  return texts.map((text, i) => {
    const from = start + ((end - start) * at) / total;
    at += Math.max(1, text.length);
    const to = start + ((end - start) * at) / total;
    const written = (i === 0 ? before : "") + text + (i === texts.length - 1 ? after : "");
    return {
      text: written,
      start: Math.round(from * 1000) / 1000,
      end: Math.round(to * 1000) / 1000,
      ...(confidences.length > 0 ? { confidence: Math.min(...confidences) } : {}),
      ...(original !== written ? { original } : {}),
      ...mark,
    };
  });
}
