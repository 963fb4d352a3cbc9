import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

let t: TestApi;
let key: string;
let accountId: string;
before(async () => {
  t = await startTestApi();
  ({ api_key: key, account_id: accountId } = await t.createKey());
});
after(() => t.close());

test("with local storage a completed job links to signed /v1/files URLs that expire at expires_at", async () => {
  const id = testId("job");
  await mkdir(path.join(t.dataDir, "files", id), { recursive: true });
  await writeFile(path.join(t.dataDir, "files", id, "captions.srt"), "1\n00:00:00,000 --> 00:00:01,000\nhello\n");
  const expiresAt = new Date(Date.now() + 3600_000);
  await insertCompletedJob(t.database.db, { id, accountId, expiresAt, keys: { video_key: null, transcript_key: null } });
  const { body } = await t.request("GET", `/v1/jobs/${id}`, { key });
  const url = new URL(body.subtitles.srt_url);
  assert.equal(`${url.origin}${url.pathname}`, `${t.url}/v1/files/${id}/captions.srt`);
  assert.equal(Number(url.searchParams.get("expires")), Math.floor(expiresAt.getTime() / 1000));
  assert.equal(body.video, null);
  const download = await fetch(url);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get("x-content-type-options"), "nosniff");
  assert.equal(download.headers.get("content-disposition"), 'attachment; filename="captions.srt"', "subtitles are saved, not displayed");
  assert.match(await download.text(), /hello/);
  url.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 60));
  assert.equal((await fetch(url)).status, 403, "a link with a moved expiry is refused");
});

test("transcripts download as attachments, the video plays inline, and both say nosniff", async () => {
  const id = testId("job");
  await mkdir(path.join(t.dataDir, "files", id), { recursive: true });
  await writeFile(path.join(t.dataDir, "files", id, "transcript.json"), '{"words":[]}');
  await writeFile(path.join(t.dataDir, "files", id, "captioned.mp4"), "not really a video");
  await insertCompletedJob(t.database.db, { id, accountId, expiresAt: new Date(Date.now() + 3600_000), keys: { srt_key: null } });
  const { body } = await t.request("GET", `/v1/jobs/${id}`, { key });
  const transcript = await fetch(body.subtitles.transcript_url);
  assert.equal(transcript.headers.get("content-disposition"), 'attachment; filename="transcript.json"');
  assert.equal(transcript.headers.get("x-content-type-options"), "nosniff");
  const video = await fetch(body.video.url);
  assert.equal(video.status, 200);
  assert.equal(video.headers.get("content-disposition"), null);
  assert.equal(video.headers.get("x-content-type-options"), "nosniff");
});

test("WebVTT and ASS download as attachments with their own types and charset", async () => {
  const id = testId("job");
  await mkdir(path.join(t.dataDir, "files", id), { recursive: true });
  await writeFile(path.join(t.dataDir, "files", id, "captions.vtt"), "WEBVTT\n");
  await writeFile(path.join(t.dataDir, "files", id, "captions.ass"), "[Script Info]\n");
  await insertCompletedJob(t.database.db, { id, accountId, expiresAt: new Date(Date.now() + 3600_000) });
  const { body } = await t.request("GET", `/v1/jobs/${id}`, { key });
  for (const [url, name, type] of [[body.subtitles.vtt_url, "captions.vtt", "text/vtt; charset=utf-8"], [body.subtitles.ass_url, "captions.ass", "text/x-ssa; charset=utf-8"]] as const) {
    const download = await fetch(url);
    assert.equal(download.status, 200, name);
    assert.equal(download.headers.get("content-type"), type);
    assert.equal(download.headers.get("content-disposition"), `attachment; filename="${name}"`);
    assert.equal(download.headers.get("x-content-type-options"), "nosniff");
  }
});
