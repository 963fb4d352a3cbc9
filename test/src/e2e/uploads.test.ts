// A file on the client's own disk, end to end: created with POST /v1/uploads, sent with tus-js-client
// through a connection that drops halfway (and across an API restart), submitted as upload_id, captioned
// by the real worker; hostile uploads fail as the same bytes at a URL do.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import * as tus from "tus-js-client";
import type { Job } from "@caption/shared/api/job";
import { startApiServer } from "@caption/control-plane";
import { probeMedia } from "@caption/gpu-worker/media";
import { fifoCanary, hlsPlaylist, makeSpeechVideo, type Canary } from "@caption/gpu-worker/testing";
import { droppingProxy } from "../support/dropping-proxy.ts";
import { startTestService, type TestService } from "../support/test-service.ts";

let service: TestService;
let work: string;
let fifo: Canary;

before(async () => {
  service = await startTestService();
  work = await mkdtemp(path.join(tmpdir(), "uploads-e2e-"));
  fifo = await fifoCanary(path.join(work, "canary.ts"));
});
after(async () => {
  fifo?.close();
  await service?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

async function createUpload(key: string, size: number): Promise<{ id: string; upload_url: string }> {
  const created = await service.call("POST", "/v1/uploads", key, { size_bytes: size, filename: "talk.mp4" });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

function tusUpload(file: Buffer, uploadUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const options = { uploadUrl, retryDelays: [0, 100, 200, 400], chunkSize: Number.POSITIVE_INFINITY, onError: reject, onSuccess: () => resolve() };
    const upload = new tus.Upload(file, options);
    upload.start();
  });
}

async function submitAndWait(key: string, uploadId: string, body: Record<string, unknown> = {}): Promise<Job> {
  const submitted = await service.call("POST", "/v1/subtitles", key, { upload_id: uploadId, ...body });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  return service.waitForJob(key, submitted.body.id, undefined, 180_000);
}

const recordedSource = (jobId: string) => service.database.db.selectFrom("jobs").select(["source_sha256", "source_bytes"]).where("id", "=", jobId).executeTakeFirstOrThrow();

describe("hostile uploads fail as the same bytes at a URL do", () => {
  const cases: [string, () => Promise<Buffer>][] = [
    ["a text file", async () => Buffer.from("This is not a video at all.\n".repeat(100))],
    ["an HLS playlist naming a local file", async () => Buffer.from(hlsPlaylist(fifo.path))],
    ["a corrupt MP4 (its header, then noise)", async () => Buffer.concat([(await readFile((await makeSpeechVideo({ text: "Corrupt.", width: 160, height: 120 })).path)).subarray(0, 64), randomBytes(200_000)])],
  ];
  for (const [name, bytes] of cases) {
    test(`${name}: UNSUPPORTED_FORMAT, no charge, nothing else opened`, async () => {
      const file = await bytes();
      const { api_key: key } = await service.createKey({ credits: 600 });
      const upload = await createUpload(key, file.length);
      assert.equal((await fetch(upload.upload_url, { method: "PUT", body: file })).status, 204);
      const job = await submitAndWait(key, upload.id);
      assert.equal(job.status, "failed");
      assert.equal(job.error?.code, "UNSUPPORTED_FORMAT", JSON.stringify(job.error));
      assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: 0 });
      assert.equal(await fifo.touched(), false, "the FIFO canary was never opened");
      const usage = (await service.call("GET", "/v1/usage", key)).body;
      assert.equal(usage.available_seconds, 600);
    });
  }
});

// Last: it stops the service's API.
describe("uploads end to end", () => {
  test("tus-js-client: the connection drops halfway, the upload resumes, and the job captions the uploaded video", async () => {
    const clip = await makeSpeechVideo({ text: "Uploads resume where the connection dropped.", width: 320, height: 240 });
    const file = await readFile(clip.path);
    const { api_key: key } = await service.createKey();
    const upload = await createUpload(key, file.length);
    const proxy = await droppingProxy(new URL(service.url), Math.floor(file.length / 2));
    try {
      await tusUpload(file, upload.upload_url.replace(service.url, proxy.origin));
    } finally {
      proxy.close();
    }
    assert.equal(proxy.cuts, 1, "the first connection was cut");
    const job = await submitAndWait(key, upload.id, { preset: "karaoke" });
    assert.equal(job.status, "completed", JSON.stringify(job.error));
    assert.deepEqual(await recordedSource(job.id), { source_sha256: sha256(file), source_bytes: file.length });
    assert.equal(job.usage.billed_seconds, Math.ceil(clip.durationSeconds));
    const video = Buffer.from(await (await fetch(job.video!.url)).arrayBuffer());
    const captioned = path.join(work, "captioned.mp4");
    await writeFile(captioned, video);
    const media = await probeMedia(captioned, {});
    assert.ok(Math.abs(media.durationSeconds - clip.durationSeconds) <= 0.1);
  });

  test("the API restarted mid-upload: the client resumes from the stored offset and the job's sha256 is the file's", async () => {
    const clip = await makeSpeechVideo({ text: "The API restarts in the middle.", width: 320, height: 240 });
    const file = await readFile(clip.path);
    const { api_key: key } = await service.createKey();
    const upload = await createUpload(key, file.length);
    const half = Math.floor(file.length / 2);
    const headers = { "Tus-Resumable": "1.0.0", "Content-Type": "application/offset+octet-stream" };
    const first = await fetch(upload.upload_url, { method: "PATCH", headers: { ...headers, "Upload-Offset": "0" }, body: file.subarray(0, half) });
    assert.equal(first.status, 204);
    await service.api.stop();
    const restarted = await startApiServer(service.env, service.database.url, pino({ level: "silent" }), { metrics: false });
    try {
      const url = upload.upload_url.replace(service.url, restarted.url);
      const head = await fetch(url, { method: "HEAD", headers: { "Tus-Resumable": "1.0.0" } });
      assert.equal(head.headers.get("upload-offset"), String(half));
      await tusUpload(file, url);
      const submitted = await fetch(`${restarted.url}/v1/subtitles`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ upload_id: upload.id }) });
      assert.equal(submitted.status, 202);
      const { id } = (await submitted.json()) as { id: string };
      for (let i = 0; i < 900; i += 1) {
        const row = await service.database.db.selectFrom("jobs").select("status").where("id", "=", id).executeTakeFirstOrThrow();
        if (row.status === "completed" || row.status === "failed") break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const row = await service.database.db.selectFrom("jobs").select(["status", "source_sha256"]).where("id", "=", id).executeTakeFirstOrThrow();
      assert.deepEqual({ status: row.status, sha256: row.source_sha256 }, { status: "completed", sha256: sha256(file) });
    } finally {
      await restarted.stop();
    }
  });
});

