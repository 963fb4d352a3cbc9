import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import pino from "pino";
import { manualClock } from "../testing/manual-clock.ts";
import { onShutdownSignals, SAME_REQUEST_MS } from "./shutdown-signals.ts";

function harness() {
  const target = new EventEmitter();
  const clock = manualClock(0);
  const stops: string[] = [];
  const exits: number[] = [];
  onShutdownSignals(
    pino({ level: "silent" }),
    async () => void stops.push("graceful"),
    async () => void stops.push("forceful"),
    { now: clock.now, target, exit: (code) => exits.push(code) },
  );
  return {
    signal: (name: string, atMs: number) => {
      clock.set(atMs);
      target.emit(name);
    },
    stops,
    exits,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("the first signal stops gracefully and exits 0", async () => {
  const h = harness();
  h.signal("SIGTERM", 0);
  await settle();
  assert.deepEqual(h.stops, ["graceful"]);
  assert.deepEqual(h.exits, [0]);
});

test("the same Ctrl-C delivered twice (terminal and npm) is one graceful stop", async () => {
  const h = harness();
  h.signal("SIGINT", 0);
  h.signal("SIGINT", 3);
  await settle();
  assert.deepEqual(h.stops, ["graceful"]);
});

test("a second signal a moment later is the forceful stop, once", async () => {
  const h = harness();
  h.signal("SIGINT", 0);
  h.signal("SIGINT", SAME_REQUEST_MS + 1);
  h.signal("SIGTERM", SAME_REQUEST_MS + 500);
  await settle();
  assert.deepEqual(h.stops, ["graceful", "forceful"]);
});
