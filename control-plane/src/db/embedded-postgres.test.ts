import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import pino from "pino";
import { clusterName } from "./embedded/cluster-placement.ts";
import { serverEnv } from "./embedded/postgres-server.ts";
import { EmbeddedPostgresError, startEmbeddedPostgres } from "./embedded-postgres.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const logger = pino({ level: "silent" });
const asRoot = process.getuid?.() === 0;

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe("embedded PostgreSQL", () => {
  let scratch: string;
  let stateDir: string;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "embedded-pg-"));
    // Root's stand-in for /var/lib/caption-service: reachable by the database user, like the real one.
    stateDir = path.join(scratch, "state");
    await chmod(scratch, 0o755);
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  test("a DATA_DIR behind a private (0700) parent starts, and a second start keeps the data", async () => {
    const privateParent = await mkdtemp(path.join(scratch, "private-"));
    assert.equal((await stat(privateParent)).mode & 0o777, 0o700);
    const dataDir = path.join(privateParent, "data");

    const first = await startEmbeddedPostgres(dataDir, logger, { stateDir });
    try {
      await query(first.url, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)");
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedPostgres(dataDir, logger, { stateDir });
    try {
      assert.equal(second.clusterDir, first.clusterDir);
      assert.deepEqual((await query(second.url, "SELECT n FROM kept")).rows, [{ n: 42 }]);
      const recorded = JSON.parse(await readFile(path.join(dataDir, "postgres.json"), "utf8")) as { clusterDir?: string };
      if (asRoot) {
        // The postgres user cannot enter privateParent: the cluster lives under the state directory, and postgres.json says where.
        assert.equal(path.dirname(second.clusterDir), path.join(stateDir, "clusters"));
        assert.equal(recorded.clusterDir, second.clusterDir);
        assert.equal(existsSync(path.join(dataDir, "postgres")), false);
      } else {
        assert.equal(second.clusterDir, path.join(dataDir, "postgres"));
        assert.equal(recorded.clusterDir, undefined);
      }
      // The user's directory keeps its permissions.
      assert.equal((await stat(privateParent)).mode & 0o777, 0o700);
    } finally {
      await second.destroy();
    }
    assert.equal(existsSync(second.clusterDir), false);
  });

  test("a database whose postgres.json is gone is refused with one line naming the fix", async () => {
    const dataDir = path.join(await mkdtemp(path.join(scratch, "orphan-")), "data");
    const handle = await startEmbeddedPostgres(dataDir, logger, { stateDir });
    await handle.stop();
    await rm(path.join(dataDir, "postgres.json"));
    try {
      await assert.rejects(startEmbeddedPostgres(dataDir, logger, { stateDir }), (error: Error) => {
        assert.ok(error instanceof EmbeddedPostgresError);
        assert.doesNotMatch(error.message, /\n/);
        assert.match(error.message, new RegExp(`rm -rf '${handle.clusterDir}'`));
        return true;
      });
    } finally {
      await rm(handle.clusterDir, { recursive: true, force: true });
    }
  });

  test("a server left running by a service that died is stopped and started afresh by the next start", async () => {
    const dataDir = path.join(await mkdtemp(path.join(scratch, "abandoned-")), "data");
    const first = await startEmbeddedPostgres(dataDir, logger, { stateDir });
    await query(first.url, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)");
    // As if its service had been killed: the recorded owner is a process that has exited.
    const gone = spawn("true");
    await once(gone, "exit");
    const file = path.join(dataDir, "postgres.json");
    await writeFile(file, JSON.stringify({ ...JSON.parse(await readFile(file, "utf8")), ownerPid: gone.pid }));
    const second = await startEmbeddedPostgres(dataDir, logger, { stateDir });
    try {
      assert.deepEqual((await query(second.url, "SELECT n FROM kept")).rows, [{ n: 7 }]);
      assert.equal((JSON.parse(await readFile(file, "utf8")) as { ownerPid: number }).ownerPid, process.pid);
      await first.stop(); // already stopped by the second start: returns at once
    } finally {
      await second.destroy();
    }
  });

  test("PostgreSQL's processes get a clean environment: no signing secret, database URL or cloud keys", () => {
    // Both initdb and postgres are spawned with serverEnv(). (A running server's /proc/<pid>/environ cannot
    // show it: PostgreSQL writes its process titles over that memory.)
    const parent = {
      PATH: "/usr/bin:/bin", LD_LIBRARY_PATH: "/opt/pg/lib", TZ: "UTC", TMPDIR: "/tmp", HOME: "/root", LANG: "de_DE.UTF-8",
      URL_SIGNING_SECRET: "signing-secret", AWS_ACCESS_KEY_ID: "AKIA", AWS_SECRET_ACCESS_KEY: "aws-secret", AWS_SESSION_TOKEN: "token",
      DATABASE_URL: "postgres://u:secret@h/d", STORAGE_URL: "s3://bucket", GOOGLE_APPLICATION_CREDENTIALS: "/k.json", PGPASSWORD: "pw",
    };
    assert.deepEqual(serverEnv(parent), { PATH: "/usr/bin:/bin", LD_LIBRARY_PATH: "/opt/pg/lib", TZ: "UTC", TMPDIR: "/tmp", LC_ALL: "C", LANG: "C" });
    assert.deepEqual(serverEnv({}), { LC_ALL: "C", LANG: "C" });
  });

  test("cluster names are readable and unique per path", () => {
    assert.match(clusterName("/root/caption-service/.data"), /^root-caption-service-\.data-[0-9a-f]{12}$/);
    assert.notEqual(clusterName("/a/b c"), clusterName("/a/b-c"));
  });

  test("`npm start` with a DATA_DIR it cannot create prints one line naming the cause, not a stack trace", async () => {
    const file = path.join(scratch, "a-file");
    await writeFile(file, "");
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: path.join(file, "data"), DATABASE_URL: "", PORT: "0", LOG_LEVEL: "info" };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, [path.join(repoRoot, "scripts", "embedded.ts")], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const [code] = await once(child, "exit");
    assert.equal(code, 1, output);
    const lines = output.trim().split("\n");
    assert.equal(lines.length, 1, output);
    const entry = JSON.parse(lines[0] ?? "") as { level: number; msg: string };
    assert.equal(entry.level, 60);
    assert.match(entry.msg, /^embedded PostgreSQL cannot start: DATA_DIR .*a-file\/data cannot be created \(ENOTDIR\): set DATA_DIR to a directory you can write$/);
  });
});
