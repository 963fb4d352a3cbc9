import type { Word } from "@caption/shared/api/transcript";
import { alignPosteriors, type Posterior, type UnmatchedWord } from "./posterior-alignment.ts";

const FRAMES_PER_SECOND = 100;

/**
 * Parses one line of pocketsphinx `-hypseg` output:
 * `uttid S <n> T <n> A <n> L <n> (<startFrame> <ascr> <lscr> <word>)* <frameCount>`.
 * A word lasts until the next entry's start frame. Fillers and silences are dropped, alternate
 * pronunciation suffixes removed; times are seconds from the utterance start.
 */
export function parseHypseg(line: string): { uttid: string; words: Word[] } {
  const tokens = line.trim().split(/\s+/);
  const uttid = tokens[0] ?? "";
  if (tokens.length < 10 || tokens[1] !== "S" || tokens[3] !== "T" || tokens[5] !== "A" || tokens[7] !== "L") {
    throw new Error(`unexpected pocketsphinx output: ${line.slice(0, 200)}`);
  }
  const body = tokens.slice(9);
  if (body.length % 4 !== 1) throw new Error(`unexpected pocketsphinx output: ${line.slice(0, 200)}`);
  const entries: { frame: number; word: string }[] = [];
  for (let i = 0; i + 4 <= body.length; i += 4) {
    entries.push({ frame: Number(body[i]), word: body[i + 3] ?? "" });
  }
  entries.push({ frame: Number(body[body.length - 1]), word: "" });
  const words: Word[] = [];
  for (let i = 0; i + 1 < entries.length; i++) {
    const entry = entries[i];
    const next = entries[i + 1];
    if (!entry || !next || !Number.isFinite(entry.frame) || !Number.isFinite(next.frame)) {
      throw new Error(`unexpected pocketsphinx output: ${line.slice(0, 200)}`);
    }
    const text = spokenWord(entry.word);
    if (text === undefined) continue;
    words.push({ text, start: entry.frame / FRAMES_PER_SECOND, end: next.frame / FRAMES_PER_SECOND });
  }
  return { uttid, words };
}

/** The word as spoken, or undefined for `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++GARBAGE++` and the like. */
export function spokenWord(token: string): string | undefined {
  if (/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(token)) return undefined;
  const text = token.replace(/\(\d+\)$/, "");
  return text === "" ? undefined : text;
}

// `-hyp`: the words of the best path, then the utterance id and score.
const HYP = /^(.*?) ?\((\S+) -?\d+\)$/;

/**
 * Lines `pocketsphinx_batch -hyp -hypseg -ctm` (all to one stream) answers an utterance with: its `-hyp` line,
 * its `-hypseg` line, then one `-ctm` line per real word of the hypothesis. Unrecognisable output counts as one
 * line, which parseReply then refuses.
 */
export function replyLength(hypLine: string): number {
  const hyp = HYP.exec(hypLine);
  return hyp ? 2 + hyp[1]!.split(" ").filter(Boolean).length : 1;
}

/**
 * The words of one answer (see replyLength) with their confidence: the posterior probability of the word in the
 * utterance's lattice, as the `-ctm` lines print it, matched to the words one by one (posterior-alignment.ts).
 * `unmatched` says which words got none, and why.
 */
export function parseReply(lines: readonly string[]): { uttid: string; words: Word[]; unmatched: UnmatchedWord[] } {
  const [hypLine = "", hypsegLine = "", ...ctmLines] = lines;
  const hyp = HYP.exec(hypLine);
  if (!hyp) throw new Error(`unexpected pocketsphinx output: ${hypLine.slice(0, 200)}`);
  const parsed = parseHypseg(hypsegLine);
  if (parsed.uttid !== hyp[2]) throw new Error(`unexpected pocketsphinx output: ${hypsegLine.slice(0, 200)}`);
  // `<uttid> <channel> <start> <duration> <word> <posterior>`; a line of another shape matches no word.
  const posteriors = ctmLines.map((line): Posterior => {
    const [, , start, , word = "", confidence] = line.trim().split(/\s+/);
    return { start: Number(start), word, confidence: Number(confidence) };
  });
  return { uttid: parsed.uttid, ...alignPosteriors(parsed.words, posteriors) };
}
