import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, test } from "node:test";
import pg from "pg";
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { createDatabase } from "@caption/shared/db/database";
import { migrateToLatest } from "@caption/shared/db/migrator";
import { startCaptionWorker } from "./caption-worker.ts";

// A worker never migrates. Started before the API has migrated a new database (pods start in any order),
// it waits for the schema as it waits for an outage, instead of failing to register and exiting.

const admin = process.env.TEST_DATABASE_ADMIN_URL ?? "";
const name = `test_${randomBytes(6).toString("hex")}`;
const dataDir = await mkdtemp(join(tmpdir(), "worker-startup-"));
after(async () => {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
  await rm(dataDir, { recursive: true, force: true });
});

test("a worker started on an unmigrated database waits for the migration, then starts", async () => {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;

  const lines: Record<string, unknown>[] = [];
  let waiting: () => void = () => undefined;
  const waitingLogged = new Promise<void>((resolve) => (waiting = resolve));
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = JSON.parse(chunk.toString()) as Record<string, unknown>;
        lines.push(line);
        if (line.msg === "database unreachable; waiting for it") waiting();
        done();
      },
    }),
  );
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "info", DATABASE_STARTUP_TIMEOUT_SECONDS: "120" });
  const starting = startCaptionWorker(env, url.href, logger);
  await waitingLogged;
  const waitLine = lines.find((l) => l.msg === "database unreachable; waiting for it");
  assert.match(String(waitLine?.cause), /schema is not migrated yet .* pending/);

  const db = createDatabase(url.href, { max: 2 });
  await migrateToLatest(db);
  await db.destroy();
  const worker = await starting;
  try {
    assert.ok(lines.some((l) => l.msg === "database reachable"));
    assert.ok(lines.some((l) => l.msg === "worker starting"));
  } finally {
    await worker.stop({ graceSeconds: 0 });
  }
});
