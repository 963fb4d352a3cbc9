import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { createS3Client } from "@caption/shared/storage/s3-client";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { startLoopbackS3, type LoopbackS3 } from "@caption/shared/testing/loopback-s3";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

const LINKED = testId("job");
const EXPIRING = testId("job");

const FILES = {
  "captioned.mp4": "video bytes",
  "captions.srt": "1\n00:00:00,000 --> 00:00:01,000\nhello\n",
  "captions.vtt": "WEBVTT\n",
  "captions.ass": "[Script Info]\n",
  "transcript.json": '{"words":[]}',
};

let s3: LoopbackS3;
let client: S3Client;
let t: TestApi;
let key: string;
let accountId: string;
/** The API's clock: the real one unless a test sets it. */
let clock: Date | undefined;
before(async () => {
  s3 = await startLoopbackS3();
  // Credentials reach the SDK the standard way, through its environment provider.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
  client = createS3Client(s3.env);
  t = await startTestApi({ STORAGE_URL: `s3://${s3.bucket}/tenant-a`, AWS_ENDPOINT_URL_S3: s3.env.AWS_ENDPOINT_URL_S3, AWS_REGION: s3.env.AWS_REGION }, { now: () => clock ?? new Date() });
  ({ api_key: key, account_id: accountId } = await t.createKey());
});
after(async () => {
  await t.close();
  client.destroy();
  await s3.close();
});

async function completedJob(id: string, expiresAt: Date) {
  for (const [name, body] of Object.entries(FILES)) {
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `tenant-a/${id}/${name}`, Body: body }));
  }
  await insertCompletedJob(t.database.db, { id, accountId, expiresAt });
}

/** When a SigV4 presigned URL stops working: X-Amz-Date + X-Amz-Expires. */
function presignedExpiry(url: string): Date {
  const query = new URL(url).searchParams;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(query.get("X-Amz-Date") ?? "");
  assert.ok(m, url);
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) + Number(query.get("X-Amz-Expires")) * 1000);
}

test("an S3-backed completed job links to presigned object URLs that expire at expires_at and need no credentials", async () => {
  const expiresAt = new Date(Date.now() + 3600_000 + 456);
  await completedJob(LINKED, expiresAt);
  const { status, body } = await t.request("GET", `/v1/jobs/${LINKED}`, { key });
  assert.equal(status, 200);
  const urls = {
    "captioned.mp4": body.video.url,
    "captions.srt": body.subtitles.srt_url,
    "captions.vtt": body.subtitles.vtt_url,
    "captions.ass": body.subtitles.ass_url,
    "transcript.json": body.subtitles.transcript_url,
  };
  for (const [name, url] of Object.entries(urls) as [keyof typeof FILES, string][]) {
    assert.ok(url.startsWith(`${s3.endpoint}/${s3.bucket}/tenant-a/${LINKED}/${name}?`), url);
    const expiry = presignedExpiry(url).getTime();
    assert.ok(expiry <= expiresAt.getTime() && expiry > expiresAt.getTime() - 1000, `link expiry ${new Date(expiry).toISOString()} vs expires_at ${expiresAt.toISOString()}`);
    const download = await fetch(url);
    assert.equal(download.status, 200, name);
    assert.equal(download.headers.get("content-disposition"), name === "captioned.mp4" ? null : `attachment; filename="${name}"`, name);
    assert.equal(await download.text(), FILES[name]);
  }
  assert.equal((await t.request("GET", `/v1/files/${LINKED}/captions.srt`)).status, 404, "no local file route with object storage");
});

test("a link stops working when the job's files expire", async () => {
  // Signed ten minutes ago for files that expired 2.5 s later: the store refuses it now, with no wait.
  clock = new Date(Date.now() - 600_000);
  try {
    const expiresAt = new Date(clock.getTime() + 2500);
    await completedJob(EXPIRING, expiresAt);
    const { body } = await t.request("GET", `/v1/jobs/${EXPIRING}`, { key });
    const url: string = body.subtitles.srt_url;
    assert.ok(presignedExpiry(url).getTime() <= expiresAt.getTime(), url);
    const refused = await fetch(url);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /Request has expired/);
    clock = new Date(expiresAt.getTime() + 1);
    const after = await t.request("GET", `/v1/jobs/${EXPIRING}`, { key });
    assert.equal(after.body.subtitles.srt_url, null);
  } finally {
    clock = undefined;
  }
});
