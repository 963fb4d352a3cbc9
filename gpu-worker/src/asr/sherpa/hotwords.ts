import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Customer vocabulary → sherpa-onnx hotwords for transducer models decoded with modified beam search.
//
// sherpa-onnx (1.13.8) takes a stream's hotwords as one string: phrases separated by "/", words by
// spaces, and, with modelingUnit "bpe", encodes each word into pieces itself with ssentencepiece
// from a `bpe.vocab` file (`piece score` per line). Released models ship tokens.txt but no bpe.vocab,
// so the engine writes one from tokens.txt (every piece scores −1: a word is spelt with the fewest
// pieces). Two things in that path must never see raw customer text:
// - a word starting with ":" is read as a boosting score and parsed with std::stof, which throws
//   (and a C++ exception through the addon ends the process) when the rest is not a number;
// - a word the vocabulary cannot spell is encoded to <unk> pieces, logged on stderr and the whole
//   stream's hotwords are mangled.
// So each term is cleaned and spelt here first, and only terms that spell are passed on.

/** Control and byte-fallback pieces (<blk>, <unk>, <0x41>, <|en|>) are never part of a spelling. */
const SPECIAL = /^<[^<>]*>$/;
const WORD_START = "\u2581";

/** The pieces a word can be spelt with: every line of tokens.txt but the special ones. */
export function spellingPieces(tokensTxt: string): string[] {
  const pieces: string[] = [];
  for (const line of tokensTxt.split("\n")) {
    const piece = line.trim().split(/\s+/)[0];
    if (piece !== undefined && piece !== "" && !SPECIAL.test(piece)) pieces.push(piece);
  }
  return pieces;
}

/** bpe.vocab for ssentencepiece: equal scores, so its best spelling uses the fewest pieces. */
export function bpeVocabFile(pieces: readonly string[]): string {
  return pieces.map((piece) => `${piece} -1\n`).join("");
}

/**
 * The fewest pieces that spell `word` with its word-start mark (what ssentencepiece finds with the
 * file above), or null when some character has no piece.
 */
export function spell(word: string, pieces: ReadonlySet<string>, longest: number): string[] | null {
  const text = WORD_START + word;
  // best[i]: fewest pieces spelling text[0, i); from[i]: where the last of them starts.
  const best = new Array<number>(text.length + 1).fill(Number.POSITIVE_INFINITY);
  const from = new Array<number>(text.length + 1).fill(-1);
  best[0] = 0;
  for (let end = 1; end <= text.length; end++) {
    for (let start = Math.max(0, end - longest); start < end; start++) {
      const count = (best[start] ?? Number.POSITIVE_INFINITY) + 1;
      if (count < (best[end] ?? Number.POSITIVE_INFINITY) && pieces.has(text.slice(start, end))) {
        best[end] = count;
        from[end] = start;
      }
    }
  }
  if (from[text.length] === -1) return null;
  const spelt: string[] = [];
  for (let end = text.length; end > 0; end = from[end] ?? 0) spelt.unshift(text.slice(from[end] ?? 0, end));
  return spelt;
}

/** A term's words as the hotwords string may carry them: no "/" (a phrase break), no leading ":". */
function cleanWords(term: string): string[] {
  return term
    .normalize("NFC")
    .replaceAll("/", " ")
    .split(/\s+/u)
    .map((word) => word.replace(/^:+/, ""))
    .filter((word) => word !== "");
}

export interface Hotwords {
  /** For `OfflineRecognizer.createStream(hotwords)`; empty when no term could be spelt. */
  hotwords: string;
  /** Each usable term as passed on (the case the vocabulary spells it in) with its pieces. */
  spelt: { term: string; words: string[]; pieces: string[] }[];
  /** Terms as the customer wrote them that the model's pieces cannot spell in any case. */
  unspellable: string[];
}

/**
 * Turns terms as the customer wrote them into hotwords the model can spell: as written, else all
 * upper case, else all lower case (models trained on one case only have pieces for that case).
 */
export function hotwordsFor(terms: readonly string[], vocabulary: readonly string[]): Hotwords {
  const pieces = new Set(vocabulary);
  const longest = vocabulary.reduce((n, piece) => Math.max(n, piece.length), 0);
  const spelt: Hotwords["spelt"] = [];
  const unspellable: string[] = [];
  for (const term of terms) {
    const words = cleanWords(term);
    const variants = [words, words.map((w) => w.toUpperCase()), words.map((w) => w.toLowerCase())];
    const found =
      words.length === 0
        ? undefined
        : variants.map((variant) => ({ variant, pieces: variant.map((w) => spell(w, pieces, longest)) })).find((v) => v.pieces.every((p) => p !== null));
    if (found) spelt.push({ term: found.variant.join(" "), words: found.variant, pieces: found.pieces.flatMap((p) => p ?? []) });
    else unspellable.push(term);
  }
  return { hotwords: spelt.map((s) => s.term).join("/"), spelt, unspellable };
}

export interface HotwordSpelling {
  /** The pieces of the model's tokens.txt that spell words. */
  pieces: string[];
  /** bpe.vocab written from them, for the recognizer's `bpeVocab`. */
  bpeVocab: string;
  dispose(): Promise<void>;
}

/** Reads the model's tokens.txt and writes the bpe.vocab sherpa-onnx spells hotwords with, in a temporary folder. */
export async function prepareHotwordSpelling(tokensPath: string): Promise<HotwordSpelling> {
  const pieces = spellingPieces(await readFile(tokensPath, "utf8"));
  const dir = await mkdtemp(join(tmpdir(), "sherpa-hotwords-"));
  const bpeVocab = join(dir, "bpe.vocab");
  await writeFile(bpeVocab, bpeVocabFile(pieces));
  return { pieces, bpeVocab, dispose: () => rm(dir, { recursive: true, force: true }) };
}
