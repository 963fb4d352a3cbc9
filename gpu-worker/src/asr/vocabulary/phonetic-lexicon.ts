import { join } from "node:path";
import { DEFAULT_POCKETSPHINX_MODEL_DIR } from "../pocketsphinx-engine.ts";
import { loadPronouncingDictionary, type PronouncingDictionary } from "./cmu-dictionary.ts";
import { pronounce } from "./grapheme-to-phoneme.ts";

/** How words sound, in ARPAbet: from the pronouncing dictionary, else made by grapheme-to-phoneme. */
export interface PhoneticLexicon {
  /** Pronunciations of each (lower-case, bare) word; an empty list for a word nothing can pronounce. */
  lookup(words: readonly string[], signal?: AbortSignal): Promise<Map<string, string[][]>>;
}

export function phoneticLexicon(dictionary: PronouncingDictionary): PhoneticLexicon {
  return {
    async lookup(words, signal) {
      const found = new Map<string, string[][]>();
      const missing: string[] = [];
      for (const word of new Set(words)) {
        const known = dictionary.get(word);
        if (known) found.set(word, known);
        else missing.push(word);
      }
      if (missing.length > 0) for (const [word, variants] of await pronounce(missing, signal ? { signal } : {})) found.set(word, variants);
      return found;
    },
  };
}

/** The lexicon of pocketsphinx's English dictionary (read once per worker), which holds what it recognises. */
export async function defaultPhoneticLexicon(modelDir = DEFAULT_POCKETSPHINX_MODEL_DIR): Promise<PhoneticLexicon> {
  return phoneticLexicon(await loadPronouncingDictionary(join(modelDir, "cmudict-en-us.dict")));
}

/** For a job without vocabulary, which looks nothing up. */
export const NO_LEXICON: PhoneticLexicon = { lookup: () => Promise.resolve(new Map()) };
