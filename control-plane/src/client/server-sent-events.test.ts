import assert from "node:assert/strict";
import { test } from "node:test";
import { serverSentEvents } from "./server-sent-events.ts";

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

test("events are read as EventSource reads them, across chunk boundaries, comments and CRLF dropped", async () => {
  const events = [];
  for await (const event of serverSentEvents(chunks("retry: 2000\n\nid: 7\nevent: sta", "tus\ndata: {\"a\":1}\r\n\r\n: heartbeat\n\n", "data: x\ndata: y\n\nid: 9\nevent: progress\ndata:", " 2\n\n"))) {
    events.push(event);
  }
  assert.deepEqual(events, [
    { id: "7", event: "status", data: '{"a":1}' },
    { event: "message", data: "x\ny" },
    { id: "9", event: "progress", data: "2" },
  ]);
});

test("an event cut off by the end of the stream is not delivered", async () => {
  const events = [];
  for await (const event of serverSentEvents(chunks("id: 1\nevent: status\ndata: {}\n"))) events.push(event);
  assert.deepEqual(events, []);
});

test("comment lines go to onComment, in order, between the events", async () => {
  const heard: string[] = [];
  const events = [];
  for await (const event of serverSentEvents(chunks(": heartbeat\n\nid: 1\nevent: status\ndata: {}\n\n:  second \n\n"), (text) => heard.push(`comment ${text}`))) {
    heard.push(`event ${event.id}`);
    events.push(event);
  }
  assert.deepEqual(heard, ["comment heartbeat", "event 1", "comment second"]);
  assert.deepEqual(events, [{ id: "1", event: "status", data: "{}" }]);
});
