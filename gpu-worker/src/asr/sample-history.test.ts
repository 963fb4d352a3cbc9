import assert from "node:assert/strict";
import { test } from "node:test";
import { SampleHistory } from "./sample-history.ts";

function ramp(from: number, length: number): Float32Array {
  return Float32Array.from({ length }, (_, i) => from + i);
}

test("slices by absolute index across growth, dropping and compaction", () => {
  const history = new SampleHistory();
  let written = 0;
  // Chunks of awkward sizes, dropping most of what was read as a streaming reader would.
  for (const size of [1000, 70_000, 3, 140_000, 5000, 90_000, 200_000]) {
    history.append(ramp(written, size));
    written += size;
    assert.equal(history.end, written);
    assert.deepEqual(history.slice(written - 10, written), ramp(written - 10, 10));
    history.dropBefore(written - 20_000);
  }
  assert.deepEqual(history.slice(written - 20_000, written - 19_990), ramp(written - 20_000, 10));
  // Forgotten and not yet written samples are clamped away.
  assert.deepEqual(history.slice(written - 20_005, written - 19_995), ramp(written - 20_000, 5));
  assert.deepEqual(history.slice(written - 3, written + 50), ramp(written - 3, 3));
  assert.equal(history.slice(0, 100).length, 0);
});
