import assert from "node:assert/strict";
import { test } from "node:test";
import { createLookupGate } from "./lookup-gate.ts";

const deferred = () => {
  let resolve!: (value: string) => void;
  const promise = new Promise<string>((r) => (resolve = r));
  return { promise, resolve };
};
const tick = () => new Promise((resolve) => setImmediate(resolve));
const open = () => new AbortController().signal;

test("an account's fifth lookup waits for one of its four to end; another account's goes at once", async () => {
  const gate = createLookupGate(4);
  const held = Array.from({ length: 4 }, deferred);
  const running = held.map((d) => gate.run("acct_a", open(), () => d.promise));
  let fifthStarted = false;
  const fifth = gate.run("acct_a", open(), async () => {
    fifthStarted = true;
    return "fifth";
  });
  assert.equal(await gate.run("acct_b", open(), async () => "other"), "other");
  await tick();
  assert.equal(fifthStarted, false);
  assert.equal(gate.inFlight("acct_a"), 4);
  held[2]?.resolve("done");
  assert.equal(await fifth, "fifth");
  for (const d of held) d.resolve("done");
  await Promise.all(running);
  assert.equal(gate.inFlight("acct_a"), 0);
});

test("a waiting lookup whose signal aborts leaves the line and never runs; a failed lookup frees its slot", async () => {
  const gate = createLookupGate(1);
  const held = deferred();
  const first = gate.run("acct", open(), () => held.promise);
  const controller = new AbortController();
  let ran = false;
  const waiting = gate.run("acct", controller.signal, async () => (ran = true));
  controller.abort(new Error("timed out"));
  await assert.rejects(waiting, /timed out/);
  held.resolve("ok");
  await first;
  await assert.rejects(gate.run("acct", open(), () => Promise.reject(new Error("ENOTFOUND"))), /ENOTFOUND/);
  assert.equal(await gate.run("acct", open(), async () => "after"), "after");
  assert.equal(ran, false);
  assert.equal(gate.inFlight("acct"), 0);
});
