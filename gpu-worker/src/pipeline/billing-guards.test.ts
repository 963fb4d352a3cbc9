import assert from "node:assert/strict";
import { test } from "node:test";
import { JobFailure } from "@caption/shared/errors/codes";
import { processingDeadline, processingDeadlineMs } from "./processing-deadline.ts";
import { assertRenderedWithinBilled } from "./rendered-duration.ts";
import { assertSameSource } from "./source-fingerprint.ts";

const fails = (code: string) => (error: unknown) => error instanceof JobFailure && error.code === code;

test("a render may run up to the billed seconds plus one frame, not a frame more", () => {
  assertRenderedWithinBilled(7.0, 7, 30);
  assertRenderedWithinBilled(7 + 1 / 30, 7, 30);
  assert.throws(() => assertRenderedWithinBilled(7 + 1 / 30 + 0.002, 7, 30), fails("RENDER_FAILED"));
  assert.throws(() => assertRenderedWithinBilled(30.52, 1, 30), fails("RENDER_FAILED"));
});

test("a retry on the bytes the first inspection saw passes; other bytes fail SOURCE_CHANGED", () => {
  const first = { sha256: "a".repeat(64), bytes: 1000 };
  assertSameSource({ sha256: null, bytes: null }, first);
  assertSameSource(first, first);
  assert.throws(() => assertSameSource(first, { sha256: "b".repeat(64), bytes: 1000 }), fails("SOURCE_CHANGED"));
  assert.throws(() => assertSameSource(first, { sha256: first.sha256, bytes: 999 }), fails("SOURCE_CHANGED"));
});

test("the processing deadline grows with the billed duration", () => {
  const policy = { baseSeconds: 60, perVideoSecond: 0.8 };
  assert.equal(processingDeadlineMs(1, policy), 60_800);
  assert.equal(processingDeadlineMs(600, policy), 540_000);
});

test("past the deadline its signal aborts with PROCESSING_TIMEOUT; cleared, it never does", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const policy = { baseSeconds: 10, perVideoSecond: 1 };
  const deadline = processingDeadline(5, policy);
  const cleared = processingDeadline(5, policy);
  cleared.clear();
  t.mock.timers.tick(14_999);
  assert.equal(deadline.signal.aborted, false);
  t.mock.timers.tick(1);
  assert.ok(fails("PROCESSING_TIMEOUT")(deadline.signal.reason));
  t.mock.timers.tick(60_000);
  assert.equal(cleared.signal.aborted, false);
});
