import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { openEventStream, spawnService, type EventStreamClient, type ServiceProcess } from "@caption/control-plane/testing";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { startTestService, type TestService } from "../support/test-service.ts";
import { writeTypedClient } from "../support/typed-client.ts";

// One job, driven end to end by a client typed from the served OpenAPI document (openapi-typescript
// + openapi-fetch, type-checked by tsc first) through one API process, while two API processes
// (`npm run api`) over the same database stream its events to their own clients.

const run = promisify(execFile);
let service: TestService;
let files: TestHttpsServer;
let apis: ServiceProcess[] = [];
let urls: string[] = [];
let dataDir: string;

before(async () => {
  [service, files] = await Promise.all([startTestService(), startTestHttpsServer()]);
  const clip = await makeSpeechVideo({ text: "A typed client follows this job.", width: 320, height: 240, fps: 10, padSeconds: 0.5 });
  files.serveFile("/clip.mp4", clip.path, "video/mp4");
  dataDir = await mkdtemp(path.join(tmpdir(), "caption-two-apis-"));
  // The worker stores results under its DATA_DIR; both APIs serve them from there.
  const env = { DATABASE_URL: service.database.url, STORAGE_URL: `file://${path.resolve(service.dataDir, "files")}`, URL_SIGNING_SECRET: randomBytes(32).toString("base64url"), ALLOW_PRIVATE_VIDEO_URLS: "true", SSE_HEARTBEAT_SECONDS: "1" };
  apis = [spawnService("api", { ...env, DATA_DIR: path.join(dataDir, "a") }), spawnService("api", { ...env, DATA_DIR: path.join(dataDir, "b") })];
  urls = await Promise.all(apis.map(async (api) => String((await api.waitForLine((line) => line.msg === "API listening")).url)));
});
after(async () => {
  await Promise.all(apis.map((api) => api.stop()));
  await files?.close();
  await service?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test("a typed client drives a job to completion while two API processes stream its events", async () => {
  const [urlA = "", urlB = ""] = urls;
  const document = await (await fetch(`${urlA}/v1/openapi.json`)).json();
  const dir = path.join(REPO_ROOT, ".tmp", `typed-client-${process.pid}`);
  await writeTypedClient(dir, document);
  // The generated types and the client compile under strict settings.
  await run(process.execPath, [path.join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", path.join(dir, "tsconfig.json")], { cwd: dir }).catch((error: { stdout?: string }) => {
    throw new Error(`tsc failed:\n${error.stdout}`);
  });

  const { api_key, account_id } = await service.createKey();
  const client = run(process.execPath, [path.join(dir, "client.ts")], {
    cwd: dir,
    env: { ...process.env, API_URL: urlA, API_KEY: api_key, VIDEO_URL: files.url("/clip.mp4"), POLL_MS: "250" },
  });
  // Find the job the client submitted, then follow it from both processes.
  let jobId: string | undefined;
  while (!jobId) {
    const row = await service.database.db.selectFrom("jobs").select("id").where("account_id", "=", account_id).executeTakeFirst();
    jobId = row?.id;
    if (!jobId) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const streams: EventStreamClient[] = await Promise.all([urlA, urlB].map((url) => openEventStream(`${url}/v1/jobs/${jobId}/events`, { authorization: `Bearer ${api_key}` })));

  const { stdout } = await client;
  const result = JSON.parse(stdout);
  assert.equal(result.id, jobId);
  assert.equal(result.status, "completed", stdout);
  assert.match(result.video, new RegExp(`^${urlA}/v1/files/${jobId}/captioned\\.mp4\\?`));
  assert.equal((await fetch(result.srt)).status, 200);
  assert.equal(result.quality, "vertical");
  assert.equal((await fetch(result.report)).status, 200);

  for (const stream of streams) {
    assert.equal(stream.status, 200);
    await stream.ended;
    const statuses = stream.events.filter((e) => e.event === "status").map((e) => JSON.parse(e.data).status);
    assert.deepEqual(statuses, ["queued", "ingesting", "transcribing", "rendering", "completed"]);
    const progress = stream.events.map((e) => JSON.parse(e.data).progress as number);
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b), "progress never goes down");
    assert.ok(stream.events.some((e) => e.event === "progress"));
  }
  assert.deepEqual(streams[0]?.events, streams[1]?.events, "both processes stream the same events, ids included");
  await rm(dir, { recursive: true, force: true });
});
