import { VOWELS } from "../asr/vocabulary/arpabet.ts";

// The phonetic distance of the vocabulary post-pass (docs/vocabulary.md), computed in whole numbers: costs are in
// half phones, so substituting near phones costs 1 and any other edit 2, and phones are small integer codes.

/** Substituting one vowel for another, or a consonant for its voiced or voiceless twin, costs half: recognisers confuse those most. */
const TWINS = new Set(["P B", "T D", "K G", "F V", "S Z", "SH ZH", "CH JH", "TH DH"].flatMap((pair) => [pair, pair.split(" ").reverse().join(" ")]));
const near = (x: string, y: string) => (VOWELS.has(x) && VOWELS.has(y)) || TWINS.has(`${x} ${y}`);
const SAME = 0;
const NEAR = 1;
/** An insertion, a deletion or a substitution of phones that are not near. */
const EDIT = 2;
const FAR = 1 << 29;

/** The phones of one pass as codes 0…n−1, and what substituting each for each costs (in half phones). */
export interface PhoneCodes {
  encode(phones: readonly string[]): Uint16Array;
  readonly size: number;
  readonly costs: Uint8Array;
}

/** Codes for every phone of `sequences` (the pass's words and terms). */
export function phoneCodes(sequences: Iterable<readonly string[]>): PhoneCodes {
  const codes = new Map<string, number>();
  for (const sequence of sequences) for (const phone of sequence) if (!codes.has(phone)) codes.set(phone, codes.size);
  const names = [...codes.keys()];
  const size = names.length;
  const costs = new Uint8Array(size * size);
  names.forEach((x, i) => names.forEach((y, j) => (costs[i * size + j] = i === j ? SAME : near(x, y) ? NEAR : EDIT)));
  return {
    size,
    costs,
    encode: (phones) => Uint16Array.from(phones, (phone) => codes.get(phone) ?? 0),
  };
}

/** Units of work a pass may still spend: one per cell of an edit distance, per pair of sequences compared, per phone of a saying built. */
export class WorkMeter {
  readonly budget: number;
  #used = 0;
  #spent = false;
  constructor(budget: number) {
    this.budget = budget;
  }
  /** Takes `units` if that many are left; otherwise takes none and the meter is spent for good. */
  take(units: number): boolean {
    if (this.#spent || this.#used + units > this.budget) {
      this.#spent = true;
      return false;
    }
    this.#used += units;
    return true;
  }
  get spent(): boolean {
    return this.#spent;
  }
  get used(): number {
    return this.#used;
  }
}

let previous = new Int32Array(64);
let current = new Int32Array(64);

/**
 * Edit distance (in half phones) from `heard` to `term` when it is at most `limit`, else Infinity; also Infinity
 * when the meter runs out first. Exact within the limit: every insertion or deletion costs 2, so a sequence
 * alignment within it never strays more than limit/2 cells from the diagonal (the band computed), and the
 * distance can only grow from a row's smallest cell (once that passes the limit, the rest is not computed).
 */
export function boundedDistance(heard: Uint16Array, term: Uint16Array, limit: number, codes: PhoneCodes, meter: WorkMeter): number {
  const n = heard.length;
  const m = term.length;
  if (!meter.take(1) || Math.abs(n - m) * EDIT > limit) return Infinity;
  const band = Math.floor(limit / EDIT);
  if (previous.length < m + 2) {
    previous = new Int32Array(2 * m + 2);
    current = new Int32Array(2 * m + 2);
  }
  let up = previous;
  let row = current;
  const first = Math.min(m, band);
  if (!meter.take(first + 1)) return Infinity;
  for (let j = 0; j <= first; j++) up[j] = j * EDIT;
  if (first < m) up[first + 1] = FAR;
  const { costs, size } = codes;
  for (let i = 1; i <= n; i++) {
    const from = Math.max(1, i - band);
    const to = Math.min(m, i + band);
    if (!meter.take(to - from + 1)) return Infinity;
    row[from - 1] = from === 1 && i <= band ? i * EDIT : FAR;
    let smallest = row[from - 1]!;
    const x = heard[i - 1]! * size;
    for (let j = from; j <= to; j++) {
      let cell = up[j - 1]! + costs[x + term[j - 1]!]!;
      const deleted = up[j]! + EDIT;
      if (deleted < cell) cell = deleted;
      const inserted = row[j - 1]! + EDIT;
      if (inserted < cell) cell = inserted;
      row[j] = cell;
      if (cell < smallest) smallest = cell;
    }
    if (to < m) row[to + 1] = FAR;
    if (smallest > limit) return Infinity;
    const done = up;
    up = row;
    row = done;
  }
  return up[m]! <= limit ? up[m]! : Infinity;
}

/** The largest distance (in half phones) within `distance` per phone of a term of `phones` phones. */
export const halfPhonesWithin = (distance: number, phones: number): number => Math.floor(2 * distance * phones + 1e-9);

/**
 * Edit distance from what was heard (`a`) to a term's pronunciation (`b`), over the term's length: 0 the same,
 * 1 or more nothing alike. Substitutions of near phones cost half.
 */
export function phoneticDistance(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 1;
  const codes = phoneCodes([a, b]);
  return boundedDistance(codes.encode(a), codes.encode(b), Infinity, codes, new WorkMeter(Infinity)) / 2 / b.length;
}
