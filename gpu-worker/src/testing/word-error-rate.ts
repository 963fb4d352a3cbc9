/** Lower-case words with punctuation removed; apostrophes are dropped so "it's" and "its" agree. */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/['’]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

/** distance(ref[0..i), hyp) for every i: word-level Levenshtein, one row of the table at a time. */
function prefixDistances(ref: readonly string[], hyp: readonly string[]): number[] {
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  const byPrefix = [hyp.length];
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
    byPrefix.push(previous[hyp.length] ?? 0);
  }
  return byPrefix;
}

/**
 * (substitutions + deletions + insertions) / reference words, by word-level Levenshtein distance
 * after normalisation. An empty reference scores 0 against an empty hypothesis, else 1.
 */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  return (prefixDistances(ref, hyp).at(-1) ?? 0) / ref.length;
}

/**
 * The word error rate against the start of `reference` that `hypothesis` matches best: for speech cut
 * off where a clip ends, when where it was cut is not known (the shortest prefix wins a tie).
 */
export function spokenPrefixWordErrorRate(reference: string, hypothesis: string): number {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  const distances = prefixDistances(ref, hyp);
  let best = 0;
  for (let i = 1; i < distances.length; i++) if ((distances[i] ?? 0) < (distances[best] ?? 0)) best = i;
  if (best === 0) return hyp.length === 0 ? 0 : 1;
  return (distances[best] ?? 0) / best;
}
