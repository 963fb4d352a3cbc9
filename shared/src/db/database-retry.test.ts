import assert from "node:assert/strict";
import { describe, test } from "node:test";
import pino from "pino";
import { manualClock } from "../testing/manual-clock.ts";
import { DatabaseWaitTimeout, retryDelayMs, retryWhileDatabaseUnavailable, waitForDatabase } from "./database-retry.ts";
import { isDatabaseUnavailable } from "./database-errors.ts";

/** A clock that only moves when the code under test sleeps. */
const fakeClock = () => manualClock(1_000_000, { sleepsAdvance: true });

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

/** Fails with `error` `failures` times, then answers "ok". */
function flaky(failures: number, error: () => unknown = refused) {
  let calls = 0;
  const operation = async () => {
    calls += 1;
    if (calls <= failures) throw error();
    return "ok";
  };
  return { operation, calls: () => calls };
}

function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("isDatabaseUnavailable", () => {
  const unavailable: [string, unknown][] = [
    ["a refused connection", refused()],
    ["every address refused (AggregateError)", Object.assign(new AggregateError([refused(), refused()]), { code: "ECONNREFUSED" })],
    ["an AggregateError without a code", new AggregateError([refused()])],
    ["the server terminating the connection (57P01)", Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" })],
    ["a database starting up (57P03)", Object.assign(new Error("the database system is starting up"), { code: "57P03" })],
    ["too many connections (53300)", Object.assign(new Error("sorry, too many clients already"), { code: "53300" })],
    ["a connection exception (08006)", Object.assign(new Error("connection failure"), { code: "08006" })],
    ["a statement timeout (57014)", Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" })],
    ["a socket that ended", new Error("Connection terminated unexpectedly")],
    ["a client broken earlier", new Error("Client has encountered a connection error and is not queryable")],
    ["a pool connect timeout", new Error("timeout exceeded when trying to connect")],
    ["one wrapped as a cause", new Error("enqueue failed", { cause: refused() })],
  ];
  for (const [name, error] of unavailable) test(`${name}: unavailable`, () => assert.equal(isDatabaseUnavailable(error), true));

  const defects: [string, unknown][] = [
    ["a syntax error", Object.assign(new Error('syntax error at or near "SELEC"'), { code: "42601" })],
    ["a unique violation", Object.assign(new Error("duplicate key value"), { code: "23505" })],
    ["a plain Error", new Error("boom")],
    ["a string", "ECONNREFUSED"],
    ["undefined", undefined],
  ];
  for (const [name, error] of defects) test(`${name}: not unavailable`, () => assert.equal(isDatabaseUnavailable(error), false));
});

describe("retryWhileDatabaseUnavailable", () => {
  test("retries with delays from 100 ms doubling to 1 s until the database answers", async () => {
    const clock = fakeClock();
    const { operation, calls } = flaky(6);
    assert.equal(await retryWhileDatabaseUnavailable(operation, { clock }), "ok");
    assert.equal(calls(), 7);
    assert.deepEqual(clock.slept, [100, 200, 400, 800, 1000, 1000]);
    assert.deepEqual([1, 2, 5, 50].map(retryDelayMs), [100, 200, 1000, 1000]);
  });

  test("any other error is thrown at once", async () => {
    const clock = fakeClock();
    const { operation, calls } = flaky(1, () => Object.assign(new Error("duplicate key"), { code: "23505" }));
    await assert.rejects(retryWhileDatabaseUnavailable(operation, { clock }), /duplicate key/);
    assert.equal(calls(), 1);
  });

  test("an aborted signal ends the retries with the database's error", async () => {
    const clock = fakeClock();
    const stop = new AbortController();
    const { operation, calls } = flaky(100);
    const retried = retryWhileDatabaseUnavailable(operation, { clock, signal: stop.signal, onRetry: () => calls() === 3 && stop.abort() });
    await assert.rejects(retried, /ECONNREFUSED/);
    assert.equal(calls(), 3);
  });
});

describe("waitForDatabase", () => {
  test("logs when the wait begins and ends, with a reminder every 10 s", async () => {
    const clock = fakeClock();
    const { logger, lines } = capturingLogger();
    const { operation } = flaky(30);
    assert.equal(await waitForDatabase(operation, { timeoutSeconds: 60, logger, clock }), "ok");
    const messages = lines.map((l) => l.msg);
    assert.equal(messages[0], "database unreachable; waiting for it");
    assert.equal(messages.at(-1), "database reachable");
    // 30 failures wait 27.5 s in all: two reminders.
    assert.deepEqual(messages.filter((m) => m === "still waiting for the database").length, 2);
  });

  test("no line when the database answers at once", async () => {
    const { logger, lines } = capturingLogger();
    assert.equal(await waitForDatabase(async () => 42, { timeoutSeconds: 60, logger, clock: fakeClock() }), 42);
    assert.deepEqual(lines, []);
  });

  test("gives up after the timeout with a DatabaseWaitTimeout naming the cause", async () => {
    const clock = fakeClock();
    const started = clock.now();
    const { operation } = flaky(Number.POSITIVE_INFINITY);
    await assert.rejects(waitForDatabase(operation, { timeoutSeconds: 5, logger: pino({ level: "silent" }), clock }), (error: unknown) => {
      assert.ok(error instanceof DatabaseWaitTimeout);
      assert.match(error.message, /unreachable for 5 s .*ECONNREFUSED/);
      return true;
    });
    assert.ok(clock.now() - started <= 5000, "no try starts after the deadline");
  });

  test("a defect during the wait is thrown as it is", async () => {
    const { operation } = flaky(1, () => new Error("migration 3 failed"));
    await assert.rejects(waitForDatabase(operation, { timeoutSeconds: 5, logger: pino({ level: "silent" }), clock: fakeClock() }), /^Error: migration 3 failed$/);
  });
});
