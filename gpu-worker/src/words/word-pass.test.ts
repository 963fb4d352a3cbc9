import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import type { Word } from "@caption/shared/api/transcript";
import { defaultPhoneticLexicon, NO_LEXICON } from "../asr/vocabulary/phonetic-lexicon.ts";
import { mask, PROFANITY } from "./profanity.ts";
import { inCaseOf } from "./replacements.ts";
import { phoneticDistance } from "./phonetic-distance.ts";
import { createWordPass } from "./word-pass.ts";

const words = (text: string, step = 0.5): Word[] => text.split(" ").map((t, i) => ({ text: t, start: i * step, end: i * step + step - 0.1, confidence: 0.9 }));
const texts = (ws: { text: string }[]) => ws.map((w) => w.text).join(" ");

test("replacements: whole words or phrases, any case and punctuation, written in the case they replace", async () => {
  const pass = await createWordPass({ vocabulary: [], replacements: { gonna: "going to", "kind of": "somewhat", um: "" }, profanity: "keep" }, NO_LEXICON, { seconds: 10 });
  const out = await pass(words("Gonna go, um, it's KIND OF gonna. GONNA gonnagain"));
  assert.equal(texts(out), "Going to go, it's SOMEWHAT going to. GOING TO gonnagain");
  const going = out.filter((w) => w.original === "Gonna");
  assert.deepEqual(going.map((w) => [w.text, w.start, w.end]), [["Going", 0, 0.286], ["to", 0.286, 0.4]]);
  assert.equal(going[0]!.confidence, 0.9);
  assert.deepEqual(inCaseOf("I", ["me"]), ["Me"]);
});

test("profanity: mask keeps the first letter and the punctuation; keep changes nothing", async () => {
  const masked = await createWordPass({ vocabulary: [], replacements: {}, profanity: "mask" }, NO_LEXICON, { seconds: 10 });
  const out = await masked(words("Oh shit, that's bullshit! Shitake is fine."));
  assert.equal(texts(out), "Oh s***, that's b*******! Shitake is fine.");
  assert.deepEqual(out.filter((w) => w.original !== undefined).map((w) => w.original), ["shit,", "bullshit!"]);
  assert.equal(mask("F-ck"), "F-**");
  const kept = await createWordPass({ vocabulary: [], replacements: {}, profanity: "keep" }, NO_LEXICON, { seconds: 10 });
  assert.equal(texts(await kept(words("oh shit"))), "oh shit");
});

test("vocabulary: words that sound like a term become the term, the original kept; unrelated words stay", async () => {
  const lexicon = await defaultPhoneticLexicon();
  const pass = await createWordPass({ vocabulary: ["Kubernetes", "Zhang Wei", "Grafana"], replacements: {}, profanity: "keep" }, lexicon, { seconds: 10 });
  const out = await pass(words("we run cooper net ease and great fauna with zhang way today kubernetes.")).finally(() => pass.close());
  assert.equal(texts(out), "we run Kubernetes and Grafana with Zhang Wei today Kubernetes.");
  assert.deepEqual(
    out.filter((w) => w.vocabulary).map((w) => [w.text, w.original]),
    [["Kubernetes", "cooper net ease"], ["Grafana", "great fauna"], ["Zhang", "zhang way"], ["Wei", "zhang way"], ["Kubernetes.", "kubernetes."]],
  );
  assert.equal(phoneticDistance(["K", "AE", "T"], ["K", "AE", "T"]), 0);
  assert.equal(phoneticDistance(["K", "AE", "T"], ["K", "EH", "T"]), 0.5 / 3);
});

test("the masked words are exactly the list docs/vocabulary.md documents", async () => {
  const doc = await readFile(new URL("../../../docs/vocabulary.md", import.meta.url), "utf8");
  const listed = doc.slice(doc.indexOf("## 3. Profanity")).split("\n\n")[2]!.replace(/\.$/u, "").split(/,\s*/u).map((w) => w.trim());
  assert.deepEqual(new Set(listed), PROFANITY);
});
