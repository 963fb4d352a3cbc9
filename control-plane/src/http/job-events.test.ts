import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { JobStatus } from "@caption/shared/api/job";
import { assertErrorShape } from "../testing/error-shape.ts";
import { openEventStream, type ServerSentEvent } from "../testing/sse-client.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

// GET /v1/jobs/{id}/events against a real API and database. No worker runs: the test moves the job
// with the same UPDATEs a worker's transitions make, and the trigger on jobs records each change.

let t: TestApi;
let key: string;

before(async () => {
  t = await startTestApi({ SSE_HEARTBEAT_SECONDS: "0.2" });
  ({ api_key: key } = await t.createKey({ concurrency: 100 }));
});
after(() => t.close());

async function submit(): Promise<string> {
  const res = await t.request("POST", "/v1/subtitles", { key, body: { video_url: "https://videos.example.com/clip.mp4" } });
  assert.equal(res.status, 202);
  return res.body.id;
}

const move = (id: string, status: JobStatus, progress: number) =>
  t.database.db.updateTable("jobs").set({ status, progress, ...(status === "failed" ? { error_code: "INTERNAL_ERROR", error_message: "x" } : {}) }).where("id", "=", id).execute();
const progress = (id: string, value: number) => t.database.db.updateTable("jobs").set({ progress: sql<number>`greatest(progress, ${value})` }).where("id", "=", id).execute();
const stream = (id: string, headers: Record<string, string> = {}) => openEventStream(`${t.url}/v1/jobs/${id}/events`, { authorization: `Bearer ${key}`, ...headers });
const summary = (events: ServerSentEvent[]) => events.map((e) => `${e.event}:${JSON.parse(e.data).status}:${JSON.parse(e.data).progress}`);

describe("GET /v1/jobs/{id}/events", () => {
  test("replays the history, then streams each change in order, and ends after the terminal state", async () => {
    const id = await submit();
    await move(id, "ingesting", 0);
    const client = await stream(id);
    assert.equal(client.status, 200);
    assert.match(client.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(client.headers.get("cache-control"), "no-store");
    await client.waitFor((e) => JSON.parse(e.data).status === "ingesting");

    await progress(id, 5);
    await move(id, "transcribing", 12);
    await progress(id, 30.5);
    await move(id, "rendering", 45);
    await progress(id, 80);
    await move(id, "completed", 100);
    await client.ended;
    assert.deepEqual(summary(client.events), [
      "status:queued:0", "status:ingesting:0", "progress:ingesting:5", "status:transcribing:12", "progress:transcribing:30.5",
      "status:rendering:45", "progress:rendering:80", "status:completed:100",
    ]);
    const ids = client.events.map((e) => Number(e.id));
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), "ids rise");
    assert.equal(new Set(ids).size, ids.length);
    for (const event of client.events) {
      const data = JSON.parse(event.data);
      assert.equal(data.job_id, id);
      assert.ok(!Number.isNaN(Date.parse(data.at)));
    }
  });

  test("Last-Event-ID resumes after that event; after the terminal event the answer is 204", async () => {
    const id = await submit();
    await move(id, "ingesting", 3);
    await move(id, "canceled", 3);
    const first = await stream(id);
    await first.ended;
    assert.deepEqual(summary(first.events), ["status:queued:0", "status:ingesting:3", "status:canceled:3"]);

    const resumed = await stream(id, { "Last-Event-ID": first.events[0]?.id ?? "" });
    await resumed.ended;
    assert.deepEqual(summary(resumed.events), ["status:ingesting:3", "status:canceled:3"]);

    // Nothing more will come: 204, which tells an EventSource to stop reconnecting.
    const done = await fetch(`${t.url}/v1/jobs/${id}/events`, { headers: { authorization: `Bearer ${key}`, "last-event-id": first.events.at(-1)?.id ?? "" } });
    assert.equal(done.status, 204);
    assert.equal(await done.text(), "");
  });

  test("an idle stream carries heartbeat comments and still delivers the next change", async () => {
    const id = await submit();
    const client = await stream(id);
    await client.waitForComments(2, 10_000);
    assert.ok(client.comments.every((c) => c === "heartbeat"));
    await move(id, "failed", 0);
    await client.ended;
    assert.deepEqual(summary(client.events), ["status:queued:0", "status:failed:0"]);
  });

  test("a client that goes away leaves the API serving", async () => {
    const id = await submit();
    const client = await stream(id);
    await client.waitFor(() => true);
    client.close();
    await move(id, "ingesting", 1);
    const again = await stream(id, { "Last-Event-ID": client.events[0]?.id ?? "" });
    await again.waitFor((e) => JSON.parse(e.data).status === "ingesting");
    again.close();
  });

  test("another account's job is 404 and a missing key 401, with the usual error body", async () => {
    const id = await submit();
    const other = await t.createKey();
    const res = await fetch(`${t.url}/v1/jobs/${id}/events`, { headers: { authorization: `Bearer ${other.api_key}` } });
    assert.equal(res.status, 404);
    assertErrorShape(await res.json(), "NOT_FOUND");
    const anonymous = await fetch(`${t.url}/v1/jobs/${id}/events`);
    assert.equal(anonymous.status, 401);
    assertErrorShape(await anonymous.json(), "UNAUTHORIZED");
  });

  test("a change committed elsewhere reaches another API process's stream by NOTIFY, long before any heartbeat", async () => {
    // A second API over the same database whose heartbeat (each of which also re-reads the events)
    // is a minute away: every event it streams before its first heartbeat came by LISTEN/NOTIFY.
    const second = await startTestApi({ SSE_HEARTBEAT_SECONDS: "60" }, { database: t.database });
    try {
      const id = await submit();
      const client = await openEventStream(`${second.url}/v1/jobs/${id}/events`, { authorization: `Bearer ${key}` });
      await client.waitFor((e) => JSON.parse(e.data).status === "queued");
      // A worker's transition, committed on a connection of the test's own…
      await move(id, "ingesting", 2);
      await client.waitFor((e) => JSON.parse(e.data).status === "ingesting", 120_000);
      assert.deepEqual(client.comments, [], "the event came without a heartbeat");
      // …and a cancel through the other API process.
      assert.equal((await t.request("POST", `/v1/jobs/${id}/cancel`, { key })).body.status, "canceled");
      await client.ended;
      assert.deepEqual(summary(client.events), ["status:queued:0", "status:ingesting:2", "status:canceled:2"]);
      assert.deepEqual(client.comments, [], "no heartbeat came: the events did not wait for one");
    } finally {
      await second.close();
    }
  });

  test("stopping the API ends its open streams instead of waiting for them", async () => {
    const other = await startTestApi();
    try {
      const owner = await other.createKey();
      const { body } = await other.request("POST", "/v1/subtitles", { key: owner.api_key, body: { video_url: "https://videos.example.com/clip.mp4" } });
      const client = await openEventStream(`${other.url}/v1/jobs/${body.id}/events`, { authorization: `Bearer ${owner.api_key}` });
      await client.waitFor(() => true);
      await other.api.stop();
      await client.ended;
      assert.deepEqual(summary(client.events), ["status:queued:0"]);
    } finally {
      await other.close();
    }
  });
});
