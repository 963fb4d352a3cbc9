import assert from "node:assert/strict";
import { test } from "node:test";
import { parseHypseg, parseReply, replyLength } from "./pocketsphinx-hypseg.ts";

test("words last until the next entry; fillers, silences and pronunciation variants are cleaned", () => {
  // Shape as printed by pocketsphinx_batch 0.8+5prealpha for flite speech.
  const line =
    "s2 S 0 T -20092523 A -18511872 L -1580651 0 -99328 0 <s> 15 -252928 -190 the 27 -900096 -618 quick " +
    "56 -205824 -524288 <sil> 62 -988160 -556 hello(2) 100 -1000 -10 [NOISE] 120 -1538048 -264 world 165 -1 0 </s> 180";
  const { uttid, words } = parseHypseg(line);
  assert.equal(uttid, "s2");
  assert.deepEqual(words, [
    { text: "the", start: 0.15, end: 0.27 },
    { text: "quick", start: 0.27, end: 0.56 },
    { text: "hello", start: 0.62, end: 1 },
    { text: "world", start: 1.2, end: 1.65 },
  ]);
});

test("an utterance without a hypothesis has no words", () => {
  assert.deepEqual(parseHypseg("e1 S 0 T 0 A 0 L 0 0"), { uttid: "e1", words: [] });
  assert.deepEqual(parseHypseg("e3 S 0 T -207212 A -206848 L -364 0 -103424 0 <s> 8 -103424 -364 </s> 18").words, []);
});

test("anything else is refused rather than misread", () => {
  assert.throws(() => parseHypseg("INFO: batch.c(771): whatever"), /unexpected pocketsphinx output/);
  assert.throws(() => parseHypseg("u1 S 0 T 0 A 0 L 0 0 -1 0 word"), /unexpected pocketsphinx output/);
  assert.throws(() => parseHypseg("u1 S 0 T 0 A 0 L 0 x -1 0 word 12"), /unexpected pocketsphinx output/);
});

test("an answer of -hyp, -hypseg and -ctm lines gives each word its lattice posterior", () => {
  // As printed by pocketsphinx_batch 0.8+5prealpha for flite speech, all three to one stream.
  const lines = [
    "the quick (u7 -11681116)",
    "u7 S 0 T -11681116 A -11675648 L -5468 0 -132096 0 <s> 16 -214016 -190 the 27 -898048 -618 quick(2) 56 -1 0 [NOISE] 60 -5 -1 </s> 70",
    "u7 1 0.16 0.10 the 0.581",
    "u7 1 0.27 0.28 quick 0.783",
  ];
  assert.equal(replyLength(lines[0]!), 4);
  assert.deepEqual(parseReply(lines), {
    uttid: "u7",
    words: [
      { text: "the", start: 0.16, end: 0.27, confidence: 0.581 },
      { text: "quick", start: 0.27, end: 0.56, confidence: 0.783 },
    ],
    unmatched: [],
  });
  assert.equal(replyLength(" (u8 0)"), 2);
  assert.deepEqual(parseReply([" (u8 0)", "u8 S 0 T 0 A 0 L 0 0"]), { uttid: "u8", words: [], unmatched: [] });
  // A line that does not line up costs its own word only, and is never given to another.
  const garbled = parseReply([lines[0]!, lines[1]!, "u7 1 0.16 0.10 the nan", lines[3]!]);
  assert.deepEqual(garbled.words.map((w) => w.confidence), [undefined, 0.783]);
  assert.deepEqual(garbled.unmatched, [{ index: 0, start: 0.16, reason: "posterior out of range", detail: Number.NaN }]);
  assert.equal(replyLength("INFO: something"), 1);
  assert.throws(() => parseReply(["INFO: something"]), /unexpected pocketsphinx output/);
});
