import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { createS3Client } from "@caption/shared/storage/s3-client";
import { startLoopbackS3, type LoopbackS3 } from "@caption/shared/testing/loopback-s3";
import { createResultStore } from "./create-result-store.ts";
import { StoredFileMissing, type ResultStore } from "./result-store.ts";

let s3: LoopbackS3;
let client: S3Client;
let store: ResultStore;
let dir: string;
before(async () => {
  s3 = await startLoopbackS3();
  // Credentials reach the SDK the standard way, through its environment provider.
  Object.assign(process.env, s3.env);
  client = createS3Client(s3.env);
  store = createResultStore({ STORAGE_URL: `s3://${s3.bucket}/results/v1`, DATA_DIR: "/nonexistent", ...s3.env });
  dir = await mkdtemp(path.join(tmpdir(), "s3-store-"));
});
after(async () => {
  client.destroy();
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

const objectKey = (key: string) => `results/v1/${key}`;
/** A presigned GET URL, valid `expiresIn` seconds from `signingDate` (default: now). */
const presign = (key: string, expiresIn: number, signingDate?: Date) =>
  getSignedUrl(client, new GetObjectCommand({ Bucket: s3.bucket, Key: objectKey(key) }), { expiresIn, signingDate });
const listKeys = async (prefix: string) =>
  ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key).sort();

test("a file over 5 MiB goes up in parts and comes back byte for byte through a presigned URL, without credentials", async () => {
  const video = randomBytes(6 * 1024 * 1024 + 123);
  const source = path.join(dir, "video.mp4");
  await writeFile(source, video);
  const before = s3.requests.length;
  assert.equal(await store.put("job_big", "captioned.mp4", source, "video/mp4"), "job_big/captioned.mp4");
  const requests = s3.requests.slice(before);
  assert.ok(requests.some((r) => r.startsWith("POST ") && r.includes("uploads")), "multipart upload started");
  assert.equal(requests.filter((r) => r.startsWith("PUT ") && r.includes("partNumber=")).length, 2, "two parts of at most 5 MiB");

  const url = await presign("job_big/captioned.mp4", 300);
  const response = await fetch(url);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "video/mp4");
  assert.ok(Buffer.from(await response.arrayBuffer()).equals(video));

  assert.equal((await fetch(url.split("?")[0] ?? "")).status, 403, "the object is not public");
  assert.equal((await fetch(url.replace(/X-Amz-Signature=[0-9a-f]/, "X-Amz-Signature=g"))).status, 403, "a tampered signature is refused");
});

test("a small file is one PUT, and a retry overwrites it", async () => {
  const source = path.join(dir, "captions.srt");
  await writeFile(source, "1\n00:00:00,000 --> 00:00:01,000\nfirst\n");
  await store.put("job_small", "captions.srt", source, "application/x-subrip; charset=utf-8");
  await writeFile(source, "1\n00:00:00,000 --> 00:00:01,000\nsecond\n");
  await store.put("job_small", "captions.srt", source, "application/x-subrip; charset=utf-8");
  const response = await fetch(await presign("job_small/captions.srt", 300));
  assert.equal(response.status, 200);
  assert.match(await response.text(), /second/);
});

test("a presigned URL stops working when it expires", async () => {
  const source = path.join(dir, "transcript.json");
  await writeFile(source, "{}");
  await store.put("job_expiry", "transcript.json", source, "application/json");
  assert.equal((await fetch(await presign("job_expiry/transcript.json", 60))).status, 200);
  // Signed ten minutes ago for one minute: expired, without waiting for it to.
  const expired = await fetch(await presign("job_expiry/transcript.json", 60, new Date(Date.now() - 600_000)));
  assert.equal(expired.status, 403);
  assert.match(await expired.text(), /expired/);
});

test("deleteJob removes every object of the job and nothing of its neighbours", async () => {
  const source = path.join(dir, "file");
  await writeFile(source, "x");
  for (const name of ["captioned.mp4", "captions.srt", "transcript.json"]) await store.put("job_1", name, source, "application/octet-stream");
  await store.put("job_10", "captions.srt", source, "application/octet-stream");
  const url = await presign("job_1/captions.srt", 300);
  assert.equal((await fetch(url)).status, 200);

  await store.deleteJob("job_1");
  assert.deepEqual(await listKeys(objectKey("job_1")), [objectKey("job_10/captions.srt")]);
  assert.equal((await fetch(url)).status, 404);
  await store.deleteJob("job_1");
  await store.deleteJob("job_never_stored");
});

test("unsafe keys and an aborted upload are refused", async () => {
  const source = path.join(dir, "file");
  await writeFile(source, "x");
  await assert.rejects(store.put("../etc", "x", source, "text/plain"), /unsafe/);
  await assert.rejects(store.put("job_2", "../x", source, "text/plain"), /unsafe/);
  await assert.rejects(store.deleteJob(""), /unsafe/);
  await assert.rejects(store.put("job_2", "x", source, "text/plain", { signal: AbortSignal.abort() }), { name: "AbortError" });
  assert.deepEqual(await listKeys(objectKey("job_2/")), []);
});

test("get downloads an object to a local file with its size and sha256; a missing one is StoredFileMissing", async () => {
  const video = randomBytes(6 * 1024 * 1024 + 7);
  const source = path.join(dir, "original");
  await writeFile(source, video);
  await store.put("job_get", "source-video", source, "application/octet-stream");
  const copy = path.join(dir, "copy");
  assert.deepEqual(await store.get("job_get", "source-video", copy), { bytes: video.length, sha256: createHash("sha256").update(video).digest("hex") });
  assert.ok((await readFile(copy)).equals(video));
  await assert.rejects(store.get("job_get", "transcript.json", copy), StoredFileMissing);
  await assert.rejects(store.get("job_get", "../x", copy), /unsafe/);
  await assert.rejects(store.get("job_get", "source-video", path.join(dir, "aborted"), { signal: AbortSignal.abort() }), { name: "AbortError" });
});

test("copy copies an object within the bucket (no upload); a missing one is StoredFileMissing", async () => {
  const video = randomBytes(64 * 1024);
  const file = path.join(dir, "copy-source");
  await writeFile(file, video);
  await store.put("job_copy_source", "source-video", file, "video/mp4");
  assert.equal(await store.copy("job_copy_source", "source-video", "job_copy_render"), "job_copy_render/source-video");
  await store.deleteJob("job_copy_source");
  const back = path.join(dir, "copy-back");
  const fingerprint = await store.get("job_copy_render", "source-video", back);
  assert.equal(fingerprint.sha256, createHash("sha256").update(video).digest("hex"));
  assert.deepEqual(await readFile(back), video);
  await assert.rejects(store.copy("job_copy_source", "source-video", "job_copy_other"), StoredFileMissing);
});
