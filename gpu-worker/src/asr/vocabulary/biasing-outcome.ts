import type { SpeechEngine } from "../speech-engine.ts";
import type { PhoneticLexicon } from "./phonetic-lexicon.ts";
import { termWords, unpronounced } from "./pocketsphinx-bias.ts";

export interface BiasingOutcome {
  terms: string[];
  /** How the engine was biased toward the terms, or why it was not. */
  biasing: string;
  not_biased: { term: string; reason: string }[];
}

/** A job submitted without vocabulary. */
export const NO_VOCABULARY: BiasingOutcome = { terms: [], biasing: "none: no vocabulary was submitted", not_biased: [] };

/** What the quality report says of a job's vocabulary on this engine. */
export async function biasingOutcome(engine: SpeechEngine, terms: readonly string[], lexicon: PhoneticLexicon): Promise<BiasingOutcome> {
  if (terms.length === 0) return NO_VOCABULARY;
  if (!engine.biasing) {
    const reason = `${engine.name} model ${engine.model} takes no hotwords; the post-pass alone applies the terms`;
    return { terms: [...terms], biasing: `none: ${reason}`, not_biased: terms.map((term) => ({ term, reason })) };
  }
  if (engine.name !== "pocketsphinx") {
    return { terms: [...terms], biasing: `${engine.name} hotwords with modified beam search (model ${engine.model}); terms its pieces cannot spell are left to the post-pass`, not_biased: [] };
  }
  const phones = await lexicon.lookup(terms.flatMap(termWords));
  const not_biased = terms.flatMap((term) => {
    const silent = termWords(term).filter((word) => (phones.get(word) ?? []).length === 0);
    return silent.length === 0 ? [] : [{ term, reason: unpronounced(silent) }];
  });
  return {
    terms: [...terms],
    biasing: "pocketsphinx: pronunciations from flite t2p and espeak-ng; a second pass offers each term where the heard words could be it",
    not_biased,
  };
}
