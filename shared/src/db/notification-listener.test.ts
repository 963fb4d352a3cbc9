import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import pino from "pino";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.ts";
import { startNotificationListener, type NotificationListener } from "./notification-listener.ts";

// The LISTEN connection survives its connection being killed (as a database restart or failover
// kills it): the process goes on, the listener reconnects, says so, and hears what comes next.

let database: TestDatabase;
let listener: NotificationListener;
const heard: string[] = [];
let connections = 0;
let waiters: (() => void)[] = [];
const changed = () => {
  for (const wake of waiters) wake();
  waiters = [];
};
// Each test has a timeout: a listener that never hears leaves `until` waiting.
const until = async (done: () => boolean) => {
  while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
};

before(async () => {
  database = await createTestDatabase();
  listener = startNotificationListener(database.url, { channels: ["test_channel"], connectTimeoutSeconds: 5, logger: pino({ level: "silent" }) });
  listener.subscribe("test_channel", "for-me", (payload) => {
    heard.push(payload);
    changed();
  });
  listener.onConnected(() => {
    connections++;
    changed();
  });
});
after(async () => {
  await listener.close();
  await database.dispose();
});

const notify = (payload: string) => sql`SELECT pg_notify('test_channel', ${payload})`.execute(database.db);

test("hears the payloads it subscribed to, and only those", { timeout: 30_000 }, async () => {
  await until(() => connections === 1);
  await notify("not-for-me");
  await notify("for-me");
  await until(() => heard.length === 1);
  assert.deepEqual(heard, ["for-me"]);
});

test("reconnects after its connection is terminated and hears notifications again", { timeout: 30_000 }, async () => {
  const killed = await sql<{ killed: boolean }>`SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = 'caption-listen' AND datname = current_database()`.execute(database.db);
  assert.equal(killed.rows.length, 1);
  await until(() => connections === 2);
  await notify("for-me");
  await until(() => heard.length === 2);
});
