import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { boundedDistance, phoneCodes, phoneticDistance, WorkMeter } from "./phonetic-distance.ts";

// The distance as first written (the whole table, costs as fractions), against which the bounded one is checked.
const NEAR_PAIRS = new Set(["AA AE", "AE AA", "AA IY", "IY AA", "AE IY", "IY AE", "T D", "D T", "K G", "G K"]);
function fullDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = a[i - 1] === b[j - 1] ? 0 : NEAR_PAIRS.has(`${a[i - 1]} ${b[j - 1]}`) ? 0.5 : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + substitute));
    }
    previous = current;
  }
  return previous[b.length]!;
}

const phones = fc.array(fc.constantFrom("AA", "AE", "IY", "T", "D", "K", "G", "S"), { minLength: 1, maxLength: 14 });

test("the bounded distance is the full table's wherever it is within the limit, and Infinity beyond it", () => {
  fc.assert(
    fc.property(phones, phones, fc.integer({ min: 0, max: 30 }), (a, b, limit) => {
      const codes = phoneCodes([a, b]);
      const half = 2 * fullDistance(a, b);
      const bounded = boundedDistance(codes.encode(a), codes.encode(b), limit, codes, new WorkMeter(Infinity));
      assert.equal(bounded, half <= limit ? half : Infinity, `${a.join(" ")} / ${b.join(" ")} within ${limit}`);
    }),
    { numRuns: 2000 },
  );
  assert.equal(phoneticDistance(["K", "AE", "T"], ["K", "EH", "T"]), 0.5 / 3);
  assert.equal(phoneticDistance(["S", "IY", "T"], ["T", "IY", "S"]), 2 / 3);
});

test("a distance spends one unit per cell it computes, and stops where its meter runs out", () => {
  const a = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? "AA" : "T"));
  const codes = phoneCodes([a]);
  const heard = codes.encode(a);
  // The whole table: the pair, its first row, 20 rows of 20.
  const whole = new WorkMeter(Infinity);
  assert.equal(boundedDistance(heard, heard, Infinity, codes, whole), 0);
  assert.equal(whole.used, 1 + 21 + 20 * 20);
  // Within 4 half phones, a band of two cells either side of the diagonal.
  const banded = new WorkMeter(Infinity);
  assert.equal(boundedDistance(heard, heard, 4, codes, banded), 0);
  assert.equal(banded.used, 1 + 3 + (3 + 4) + 16 * 5 + (4 + 3));
  // Nothing alike: the first row past the limit ends it.
  const other = codes.encode(Array.from({ length: 20 }, () => "AA"));
  const early = new WorkMeter(Infinity);
  assert.equal(boundedDistance(heard, other, 4, codes, early), Infinity);
  assert.ok(early.used < banded.used, `${early.used} units`);
  // Too different in length to come within the limit: one unit, no table.
  const short = new WorkMeter(Infinity);
  assert.equal(boundedDistance(heard, heard.subarray(0, 10), 4, codes, short), Infinity);
  assert.equal(short.used, 1);
  // A meter with less than the table needs: spent, and never overdrawn.
  const meter = new WorkMeter(100);
  assert.equal(boundedDistance(heard, heard, Infinity, codes, meter), Infinity);
  assert.ok(meter.spent && meter.used <= 100, `${meter.used} units`);
  assert.equal(meter.take(1), false, "a spent meter stays spent");
});
