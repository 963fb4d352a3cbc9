import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { insertQueuedJob } from "@caption/shared/testing/job-rows";
import { until } from "@caption/shared/testing/until";
import { MAX_EVENT_STREAMS_PER_KEY } from "../services/event-stream-leases.ts";
import { assertErrorShape } from "../testing/error-shape.ts";
import { openEventStream, type EventStreamClient } from "../testing/sse-client.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

// The cap on open event streams per key, over two API processes sharing one database, and what a
// client that resets its connection at any moment leaves behind: nothing.

let a: TestApi;
let b: TestApi;
const JOB = testId("job");
let accountId: string;

before(async () => {
  a = await startTestApi();
  b = await startTestApi({}, { database: a.database });
  accountId = (await a.createKey()).account_id;
  await insertQueuedJob(a.database.db, { id: JOB, accountId });
});
after(async () => {
  await b.close();
  await a.close();
});

/** A key of the job's account, read scope. */
async function keyOfAccount(): Promise<{ key: string; keyId: string }> {
  const { api_key: key, key_prefix: prefix } = await a.createKey({ accountId, scopes: ["subtitles:read"] });
  const row = await a.database.db.selectFrom("api_keys").select("id").where("prefix", "=", prefix).executeTakeFirstOrThrow();
  return { key, keyId: row.id };
}
const open = (api: TestApi, key: string) => openEventStream(`${api.url}/v1/jobs/${JOB}/events`, { authorization: `Bearer ${key}` });
const leaseRows = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM event_stream_leases`.execute(a.database.db)).rows[0]?.n);

/** Waits until `done` holds; fails after a minute (what is left over then stays so, whatever the machine's speed). */
describe("at most 20 open event streams per key, across API processes", () => {
  test("the 21st is 429 RATE_LIMITED with Retry-After on either process; closing one frees a place", async () => {
    const { key } = await keyOfAccount();
    const streams: EventStreamClient[] = [];
    for (let i = 0; i < MAX_EVENT_STREAMS_PER_KEY; i++) {
      const client = await open(i % 2 === 0 ? a : b, key);
      assert.equal(client.status, 200);
      streams.push(client);
    }
    for (const api of [a, b]) {
      const refused = await api.request("GET", `/v1/jobs/${JOB}/events`, { key });
      assert.equal(refused.status, 429);
      assertErrorShape(refused.body, "RATE_LIMITED");
      assert.match(refused.body.error.message, /at most 20 event streams/);
      assert.ok(Number(refused.headers.get("retry-after")) > 0);
    }
    // Another key of the same account has places of its own.
    const other = await open(b, (await keyOfAccount()).key);
    assert.equal(other.status, 200);
    other.close();

    streams.shift()?.close();
    await until("one lease released", async () => (await leaseRows()) === MAX_EVENT_STREAMS_PER_KEY - 1);
    const again = await open(b, key);
    assert.equal(again.status, 200);
    for (const client of [...streams, again]) client.close();
    await until("every lease released", async () => (await leaseRows()) === 0);
  });

  test("leases a dead process left stop counting once expired", async () => {
    const { key, keyId } = await keyOfAccount();
    const past = new Date(Date.now() - 1000);
    await a.database.db.insertInto("event_stream_leases").values(Array.from({ length: MAX_EVENT_STREAMS_PER_KEY }, () => ({ api_key_id: keyId, expires_at: past }))).execute();
    const client = await open(a, key);
    assert.equal(client.status, 200);
    client.close();
    await until("every lease released", async () => (await leaseRows()) === 0);
  });

  test("a process holding a key's 20 streams refuses the 21st itself, without the database's count", async () => {
    const { key, keyId } = await keyOfAccount();
    const streams: EventStreamClient[] = [];
    for (let i = 0; i < MAX_EVENT_STREAMS_PER_KEY; i++) streams.push(await open(a, key));
    assert.deepEqual(streams.map((s) => s.status), Array.from({ length: MAX_EVENT_STREAMS_PER_KEY }, () => 200));
    // With the key's rows gone, only the process's own count can refuse: its 20 streams are still open.
    await a.database.db.deleteFrom("event_stream_leases").where("api_key_id", "=", keyId).execute();
    const refused = await a.request("GET", `/v1/jobs/${JOB}/events`, { key });
    assert.equal(refused.status, 429);
    assertErrorShape(refused.body, "RATE_LIMITED");
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    // The other process holds none of them, and asks the database, which now counts none.
    const elsewhere = await open(b, key);
    assert.equal(elsewhere.status, 200);
    for (const client of [...streams, elsewhere]) client.close();
    await until("both processes holding no lease", () => a.api.eventStreamHoldings().leases === 0 && b.api.eventStreamHoldings().leases === 0);
    await until("every lease released", async () => (await leaseRows()) === 0);
    // Its places are back on the first process too.
    const again = await open(a, key);
    assert.equal(again.status, 200);
    again.close();
    await until("every lease released", async () => (await leaseRows()) === 0);
  });

  test("a 404 or an unauthenticated request holds no lease", async () => {
    const { key } = await keyOfAccount();
    for (let i = 0; i < MAX_EVENT_STREAMS_PER_KEY + 5; i++) {
      const res = await a.request("GET", `/v1/jobs/${testId("job")}/events`, { key });
      assert.equal(res.status, 404);
    }
    assert.equal(await leaseRows(), 0);
  });
});

describe("a client that goes away at any moment leaves nothing behind", () => {
  // Raw sockets, so a stream can be reset at moments fetch cannot reach: as soon as the request is
  // written (during authentication or the job's lookup), on the answer's first bytes, after the first event.
  const moments = ["written", "next-tick", "first-bytes", "first-event"] as const;
  type Moment = (typeof moments)[number];

  /** What the client received before it reset the connection. */
  function openAndReset(api: TestApi, key: string, moment: Moment): Promise<string> {
    const { port } = new URL(api.url);
    return new Promise((resolve) => {
      const socket = net.connect(Number(port), "127.0.0.1");
      let received = "";
      const reset = () => {
        if (!socket.destroyed) socket.resetAndDestroy();
      };
      socket.on("error", () => undefined);
      socket.on("close", () => resolve(received));
      socket.on("connect", () => {
        socket.write(`GET /v1/jobs/${JOB}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: text/event-stream\r\n\r\n`);
        if (moment === "written") reset();
        if (moment === "next-tick") setImmediate(reset);
      });
      socket.on("data", (chunk) => {
        received += chunk.toString();
        // A refusal (429 while earlier resets are still being cleaned up) ends the attempt as well.
        if (moment === "first-bytes" || !received.startsWith("HTTP/1.1 200") || received.includes("event: status")) reset();
      });
    });
  }

  const sessions = async () =>
    (await sql<{ state: string | null; n: string }>`SELECT state, count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY state`.execute(a.database.db)).rows;
  const busySessions = async () => (await sessions()).filter((row) => row.state !== "idle").reduce((sum, row) => sum + Number(row.n), 0);
  const allSessions = async () => (await sessions()).reduce((sum, row) => sum + Number(row.n), 0);

  test("1000 streams opened and reset: sessions, listener subscriptions, streams and leases return to where they were", async () => {
    // Fifty keys of twenty streams each: every stream may be open at once, so none is refused by the cap.
    const keys = await Promise.all(Array.from({ length: 50 }, () => keyOfAccount()));
    const baseline = { a: a.api.eventStreamHoldings(), b: b.api.eventStreamHoldings(), busy: await busySessions(), all: await allSessions() };
    assert.deepEqual([baseline.a.streams, baseline.a.leases, baseline.b.streams, baseline.b.leases], [0, 0, 0, 0]);

    await Promise.all(
      keys.map(async ({ key }, k) => {
        for (let round = 0; round < 2; round++) {
          await Promise.all(Array.from({ length: 10 }, (_, i) => openAndReset((k + i) % 2 === 0 ? a : b, key, moments[(k + i + round) % moments.length] ?? "written")));
        }
      }),
    );

    await until(
      () => ({ release: { a: a.api.eventStreamHoldings(), b: b.api.eventStreamHoldings(), baseline } }),
      () => {
        const now = [a.api.eventStreamHoldings(), b.api.eventStreamHoldings()];
        return now.every((h, i) => h.streams === 0 && h.leases === 0 && h.subscriptions === (i === 0 ? baseline.a : baseline.b).subscriptions);
      },
    );
    await until("every lease released", async () => (await leaseRows()) === 0);
    await until("database sessions back to the baseline", async () => (await busySessions()) <= baseline.busy);
    // Pools may keep idle connections they opened meanwhile (20 per API at most), never more.
    assert.ok((await allSessions()) <= baseline.all + 40, `${await allSessions()} sessions, ${baseline.all} before`);
    // A stream opened now works as before: nothing was left in a half-closed state.
    const received = await openAndReset(a, keys[0]?.key ?? "", "first-event");
    assert.match(received, /^HTTP\/1\.1 200[\s\S]*event: status/);
  });
});
