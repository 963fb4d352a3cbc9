import { loadPronouncingDictionary } from "./src/asr/vocabulary/cmu-dictionary.ts";
import { planBias } from "./src/asr/vocabulary/pocketsphinx-bias.ts";
const M = "/usr/share/pocketsphinx/model/en-us";
const plan = await planBias(process.argv.slice(2), await loadPronouncingDictionary(`${M}/cmudict-en-us.dict`));
for (const w of plan.words) console.error(w.key, JSON.stringify(w.pronunciations));
const { copyFileSync, appendFileSync } = await import("node:fs");
copyFileSync(`${M}/cmudict-en-us.dict`, "/tmp/i25/d2.dict");
appendFileSync("/tmp/i25/d2.dict", plan.words.flatMap(({ key, pronunciations }) => pronunciations.map((p, i) => `${key}${i === 0 ? "" : `(${i + 1})`} ${p.join(" ")}\n`)).join(""));
console.log(JSON.stringify({ acousticModel: `${M}/en-us`, languageModel: `${M}/en-us.lm.bin`, dictionary: "/tmp/i25/d2.dict", boost: plan.words.map((w) => w.key), weight: 1000 }));
