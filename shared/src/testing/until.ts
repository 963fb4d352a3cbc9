import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";

/**
 * Polls `probe` every 20 ms until it gives something other than `undefined` or `false`, and returns that; fails
 * the test after `timeoutMs`, naming `what` it waited for (a function: its value then, as JSON).
 */
export async function until<T>(
  what: string | (() => unknown),
  probe: () => Promise<T | false | undefined> | T | false | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`no ${typeof what === "string" ? what : JSON.stringify(what())} within ${timeoutMs} ms`);
    await delay(20);
  }
}
