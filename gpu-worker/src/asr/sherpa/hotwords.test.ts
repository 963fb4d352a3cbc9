import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { bpeVocabFile, hotwordsFor, prepareHotwordSpelling, spell, spellingPieces } from "./hotwords.ts";

const PIECES = ["▁ku", "▁kub", "ber", "er", "net", "ne", "t", "es", "▁", "s", "▁KUBE", "RNETES", "▁new", "▁york", "▁o'", "neil"];
const LONGEST = Math.max(...PIECES.map((p) => p.length));

test("a word is spelt with the fewest pieces, its first one carrying the word-start mark", () => {
  assert.deepEqual(spell("kubernetes", new Set(PIECES), LONGEST), ["▁ku", "ber", "net", "es"]);
  assert.equal(spell("kubernetex", new Set(PIECES), LONGEST), null, "no piece has the x");
  assert.equal(spell("", new Set(PIECES), LONGEST)?.join(""), "▁");
});

test("special pieces never spell a word, and every other piece is in bpe.vocab with one score", () => {
  const tokens = ["<unk> 0", "▁ku 1", "ber 2", "<0x41> 3", "<|en|> 4", "<blk> 5", ""].join("\n");
  assert.deepEqual(spellingPieces(tokens), ["▁ku", "ber"]);
  assert.equal(bpeVocabFile(["▁ku", "ber"]), "▁ku -1\nber -1\n");
});

test("terms are spelt as written, else in upper, else in lower case; the rest are reported", () => {
  const { hotwords, spelt, unspellable } = hotwordsFor(["Kubernetes", "new York", "O'Neil", "Zorro"], PIECES);
  assert.deepEqual(unspellable, ["Zorro"]);
  assert.deepEqual(spelt, [
    { term: "KUBERNETES", words: ["KUBERNETES"], pieces: ["▁KUBE", "RNETES"] },
    { term: "new york", words: ["new", "york"], pieces: ["▁new", "▁york"] },
    { term: "o'neil", words: ["o'neil"], pieces: ["▁o'", "neil"] },
  ]);
  assert.equal(hotwords, "KUBERNETES/new york/o'neil");
});

test("text that sherpa-onnx's hotword parser would misread is cleaned before it gets there", () => {
  // "/" separates phrases and a leading ":" is read as a boosting score (std::stof throws on the rest).
  const { hotwords, unspellable } = hotwordsFor([":kubernetes", "new/york", "::", "  ", "new\nyork"], PIECES);
  assert.equal(hotwords, "kubernetes/new york/new york");
  assert.deepEqual(unspellable, ["::", "  "]);
  assert.doesNotMatch(hotwords.split("/").join(" "), /(^|\s):/);
});

test("the spelling file is written from tokens.txt into a folder of its own, removed on dispose", async () => {
  const dir = await mkdtemp(join(tmpdir(), "hotwords-test-"));
  try {
    await writeFile(join(dir, "tokens.txt"), "▁ku 0\nber 1\n<blk> 2\n");
    const spelling = await prepareHotwordSpelling(join(dir, "tokens.txt"));
    assert.deepEqual(spelling.pieces, ["▁ku", "ber"]);
    assert.equal(await readFile(spelling.bpeVocab, "utf8"), "▁ku -1\nber -1\n");
    await spelling.dispose();
    await assert.rejects(stat(dirname(spelling.bpeVocab)), { code: "ENOENT" });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
