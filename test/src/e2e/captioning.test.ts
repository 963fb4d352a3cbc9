import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Transcript } from "@caption/shared/api/transcript";
import { probeMedia } from "@caption/gpu-worker/media";
import { parseSrt } from "@caption/gpu-worker/subtitles";
import { wordErrorRate, makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { frameAt, maxRowDifference } from "../support/frames.ts";
import { startTestService, type TestService } from "../support/test-service.ts";

const TEXT = "The quick brown fox jumps over the lazy dog. Captions make every video easier to follow.";
// Measured with pocketsphinx on flite's slt voice: 0.06–0.2 WER on these sentences; the bound leaves margin.
const MAX_WER = 0.35;

let service: TestService;
let files: TestHttpsServer;

before(async () => {
  [service, files] = await Promise.all([startTestService(), startTestHttpsServer()]);
});
after(async () => {
  await files?.close();
  await service?.close();
});

async function download(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

for (const [orientation, width, height] of [["portrait", 1080, 1920], ["landscape", 1920, 1080]] as const) {
  describe(`a ${orientation} ${width}x${height} video, end to end through the HTTP API`, () => {
    let key: string;
    let job: any;
    let source: { path: string; durationSeconds: number };
    let output: string;
    let transcript: Transcript;
    let usageBefore: any;

    before(async () => {
      source = await makeSpeechVideo({ text: TEXT, width, height, fps: 30, padSeconds: 1 });
      files.serveFile(`/${orientation}.mp4`, source.path, "video/mp4");
      ({ api_key: key } = await service.createKey({ credits: 120 }));
      usageBefore = (await service.call("GET", "/v1/usage", key)).body;
      const submitted = await service.call("POST", "/v1/subtitles", key, { video_url: files.url(`/${orientation}.mp4`), preset: "classic", max_duration_seconds: 60 });
      assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
      const seen = new Set<string>();
      let lastProgress = 0;
      job = await service.waitForJob(key, submitted.body.id, (j) => {
        seen.add(j.status);
        assert.ok(j.progress >= lastProgress, `progress went down: ${lastProgress} → ${j.progress}`);
        lastProgress = j.progress;
        return ["completed", "failed", "canceled"].includes(j.status);
      });
      assert.equal(job.status, "completed", JSON.stringify(job));
      output = path.join(service.dataDir, "downloaded.mp4");
      const video = await download(job.video.url);
      assert.equal(video.status, 200);
      await writeFile(output, video.body);
      transcript = JSON.parse((await download(job.subtitles.transcript_url)).body.toString("utf8"));
    });

    test("the job completes with 100 % progress and result URLs that expire in 24 h", () => {
      assert.equal(job.progress, 100);
      assert.equal(job.error, null);
      assert.equal(job.video.content_type, "video/mp4");
      const expires = Date.parse(job.expires_at);
      assert.ok(Math.abs(expires - Date.now() - 24 * 3600 * 1000) < 10 * 60 * 1000);
    });

    test("the MP4 keeps the input's size, duration and audio", async () => {
      const info = await probeMedia(output);
      assert.equal(info.width, width);
      assert.equal(info.height, height);
      assert.ok(Math.abs(info.durationSeconds - source.durationSeconds) <= 0.1, `${info.durationSeconds} vs ${source.durationSeconds}`);
      assert.ok(info.hasAudio);
      assert.equal(info.videoCodec, "h264");
      assert.ok(Math.abs(info.frameRate - 30) < 0.01);
    });

    test("captions are burned in while words are spoken and absent before speech", async () => {
      const word = transcript.words[Math.floor(transcript.words.length / 2)]!;
      const during = (word.start + word.end) / 2;
      const [srcDuring, outDuring, srcBefore, outBefore] = await Promise.all([
        frameAt(source.path, during, { width, height }),
        frameAt(output, during, { width, height }),
        frameAt(source.path, 0.3, { width, height }),
        frameAt(output, 0.3, { width, height }),
      ]);
      const captioned = maxRowDifference(srcDuring, outDuring, width, height);
      const clean = maxRowDifference(srcBefore, outBefore, width, height);
      assert.ok(captioned.difference > 40, `caption rows should differ strongly from the source (max row diff ${captioned.difference.toFixed(1)})`);
      assert.ok(clean.difference < 12, `no caption before speech: max row diff ${clean.difference.toFixed(1)} should be codec noise`);
      assert.ok(captioned.row > height / 2, "classic captions sit in the lower half");
    });

    test("the transcript has monotonic word times inside the video and a bounded WER", () => {
      assert.equal(transcript.job_id, job.id);
      assert.equal(transcript.engine.length > 0, true);
      assert.equal(transcript.language, "en");
      assert.ok(transcript.words.length >= 8);
      let previousEnd = 0;
      for (const w of transcript.words) {
        assert.ok(w.start >= previousEnd - 1e-6 && w.end >= w.start && w.end <= transcript.duration + 1e-6, JSON.stringify(w));
        previousEnd = w.end;
      }
      const wer = wordErrorRate(TEXT, transcript.words.map((w) => w.text).join(" "));
      assert.ok(wer <= MAX_WER, `WER ${wer.toFixed(3)} above ${MAX_WER}`);
    });

    test("the SRT parses and carries the transcript's words in order", async () => {
      const srt = await download(job.subtitles.srt_url);
      assert.equal(srt.status, 200);
      const entries = parseSrt(srt.body.toString("utf8"));
      assert.ok(entries.length >= 2);
      entries.forEach((e, i) => assert.equal(e.index, i + 1));
      const srtWords = entries.flatMap((e) => e.text.split(/\s+/)).filter(Boolean);
      assert.deepEqual(srtWords, transcript.words.map((w) => w.text));
    });

    test("exactly ceil(duration) is billed and usage moves by exactly that", async () => {
      const seconds = Math.ceil(source.durationSeconds);
      assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: seconds });
      const usage = (await service.call("GET", "/v1/usage", key)).body;
      assert.equal(usage.consumed_seconds - usageBefore.consumed_seconds, seconds);
      assert.equal(usageBefore.available_seconds - usage.available_seconds, seconds);
      assert.equal(usage.reserved_seconds, 0);
    });

    test("result links work without a key, serve Range requests, and refuse tampering", async () => {
      const full = await download(job.video.url);
      assert.equal(full.status, 200);
      assert.equal(full.headers.get("content-type"), "video/mp4");
      const part = await download(job.video.url, { Range: "bytes=0-99" });
      assert.equal(part.status, 206);
      assert.equal(part.body.length, 100);
      assert.deepEqual(part.body, full.body.subarray(0, 100));
      assert.match((await download(job.subtitles.transcript_url)).headers.get("content-type") ?? "", /application\/json/);
      const tampered = await download(job.video.url.replace(/signature=[^&]+/, "signature=forged"));
      assert.equal(tampered.status, 403);
    });
  });
}

test("text_case changes the picture only: transcript and SRT keep the spoken words", async () => {
  const source = await makeSpeechVideo({ text: "Hello there friends.", width: 640, height: 360, fps: 25, padSeconds: 0.5 });
  files.serveFile("/case.mp4", source.path, "video/mp4");
  const { api_key: key } = await service.createKey();
  const { body } = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/case.mp4"), style: { text_case: "uppercase" } });
  const job = await service.waitForJob(key, body.id);
  assert.equal(job.status, "completed", JSON.stringify(job));
  const transcript = JSON.parse(await (await fetch(job.subtitles.transcript_url!)).text());
  const srt = await (await fetch(job.subtitles.srt_url!)).text();
  assert.equal(transcript.style.text_case, "uppercase");
  assert.ok(transcript.words.some((w: { text: string }) => w.text !== w.text.toUpperCase()), "transcript words keep their case");
  assert.ok(/[a-z]/.test(srt), "SRT keeps lowercase letters");
});
