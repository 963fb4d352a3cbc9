// The word pass other packages may use: a job's vocabulary snapping, replacements and profanity masking.
export { createWordPass, vocabularyBudget, type JobWordPass, type WordPass, type WordPassOptions } from "./word-pass.ts";
export type { PassedWord } from "./passed-word.ts";
