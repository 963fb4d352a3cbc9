import assert from "node:assert/strict";
import { test } from "node:test";
import { isHdr } from "./dynamic-range.ts";

test("HLG and PQ sources are HDR; BT.709, other SDR transfers and untagged sources are not", () => {
  assert.equal(isHdr({ colorTransfer: "arib-std-b67" }), true);
  assert.equal(isHdr({ colorTransfer: "smpte2084" }), true);
  for (const transfer of ["bt709", "smpte170m", "iec61966-2-1", "bt2020-10", null]) assert.equal(isHdr({ colorTransfer: transfer }), false, String(transfer));
});
