// Pronunciations as CMU ARPAbet phones (no stress marks): what pocketsphinx's en-us acoustic model and its
// dictionary use, and what the phonetic distance of the vocabulary post-pass compares.

export const ARPABET = new Set([
  "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY", "JH", "K", "L", "M",
  "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH",
]);
export const VOWELS = new Set(["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]);

// flite's t2p phone set (CMU, lower case, stress digits on vowels): schwa and r-coloured schwa are its own.
const FLITE_EXTRA: Record<string, string[]> = { ax: ["AH"], axr: ["ER"] };

/** flite `t2p` phones of one word → ARPAbet, or null when one is not an ARPAbet phone. */
export function fromFlite(phones: readonly string[]): string[] | null {
  const out: string[] = [];
  for (const phone of phones) {
    const bare = phone.replace(/\d$/u, "");
    const mapped = FLITE_EXTRA[bare] ?? [bare.toUpperCase()];
    if (!mapped.every((p) => ARPABET.has(p))) return null;
    out.push(...mapped);
  }
  return out.length > 0 ? out : null;
}

// espeak-ng's American English IPA (with `--sep=_`, one phoneme per piece) → ARPAbet.
const IPA: Record<string, string[]> = {
  "ɑ": ["AA"], "ɑː": ["AA"], "a": ["AA"], "aː": ["AA"], "ɒ": ["AA"], "æ": ["AE"], "ʌ": ["AH"], "ə": ["AH"], "ɐ": ["AH"], "ɔ": ["AO"], "ɔː": ["AO"],
  "aʊ": ["AW"], "aɪ": ["AY"], "ɛ": ["EH"], "e": ["EH"], "ɚ": ["ER"], "ɝ": ["ER"], "ɜː": ["ER"], "ɜ": ["ER"], "eɪ": ["EY"], "ɪ": ["IH"], "ᵻ": ["IH"],
  "i": ["IY"], "iː": ["IY"], "oʊ": ["OW"], "əʊ": ["OW"], "o": ["OW"], "oː": ["OW"], "ɔɪ": ["OY"], "ʊ": ["UH"], "u": ["UW"], "uː": ["UW"],
  "ɑːɹ": ["AA", "R"], "ɔːɹ": ["AO", "R"], "ɔɹ": ["AO", "R"], "ɛɹ": ["EH", "R"], "ɪɹ": ["IH", "R"], "ʊɹ": ["UH", "R"], "aɪɚ": ["AY", "ER"],
  "aɪə": ["AY", "AH"], "iə": ["IY", "AH"], "oːɹ": ["AO", "R"], "əl": ["AH", "L"], "l̩": ["AH", "L"], "n̩": ["AH", "N"], "m̩": ["AH", "M"],
  "b": ["B"], "tʃ": ["CH"], "d": ["D"], "ð": ["DH"], "f": ["F"], "ɡ": ["G"], "g": ["G"], "h": ["HH"], "dʒ": ["JH"], "k": ["K"], "l": ["L"],
  "m": ["M"], "n": ["N"], "ŋ": ["NG"], "p": ["P"], "ɹ": ["R"], "r": ["R"], "s": ["S"], "ʃ": ["SH"], "t": ["T"], "ɾ": ["T"], "ʔ": ["T"],
  "θ": ["TH"], "v": ["V"], "w": ["W"], "j": ["Y"], "z": ["Z"], "ʒ": ["ZH"], "x": ["K"], "ç": ["HH"], "ɬ": ["L"],
};

/** espeak-ng IPA phonemes of one word → ARPAbet, or null when one cannot be mapped. */
export function fromIpa(phonemes: readonly string[]): string[] | null {
  const out: string[] = [];
  for (const phoneme of phonemes) {
    const bare = phoneme.replace(/[ˈˌ]/gu, "");
    if (bare === "") continue;
    const mapped = IPA[bare] ?? IPA[bare.replace(/ː/gu, "")];
    if (mapped === undefined) return null;
    out.push(...mapped);
  }
  return out.length > 0 ? out : null;
}

/** CMU dictionary phones (with stress digits) → ARPAbet. */
export const fromCmu = (phones: string): string[] => phones.trim().split(/\s+/u).map((p) => p.replace(/\d$/u, ""));
