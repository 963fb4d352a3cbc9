// Subtitle profiles, the quality report and a customer's words, end to end through the HTTP API: a smash job
// (one word at a time in the picture) whose files follow the BBC profile, with a vocabulary, replacements and
// masking; then rendered again with edited words and the vertical profile.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Value } from "@sinclair/typebox/value";
import { isTerminal, type Job } from "@caption/shared/api/job";
import { QualityReportSchema, type QualityReport } from "@caption/shared/api/quality-report";
import type { Transcript } from "@caption/shared/api/transcript";
import { parseSrt } from "@caption/gpu-worker/subtitles";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { startTestService, type TestService } from "../support/test-service.ts";

const TEXT = "We moved the whole platform to Kubernetes last spring. Then we baked bread with flour and water for the team.";

let service: TestService;
let files: TestHttpsServer;
let key: string;
let job: Job;
let report: QualityReport;
let transcript: Transcript;
let srt: string;

const fetchText = async (url: string | null) => {
  assert.ok(url, "a link");
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return { body: await response.text(), type: response.headers.get("content-type") };
};
const finish = async (id: string) => {
  const done = await service.waitForJob(key, id, (j) => isTerminal(j.status));
  assert.equal(done.status, "completed", JSON.stringify(done));
  return done;
};
const readReport = async (done: Job) => {
  const { body, type } = await fetchText(done.subtitles.quality_url);
  assert.equal(type, "application/json");
  const parsed: unknown = JSON.parse(body);
  assert.ok(Value.Check(QualityReportSchema, parsed), [...Value.Errors(QualityReportSchema, parsed)].map((e) => `${e.path} ${e.message}`).join("; "));
  return parsed;
};

before(async () => {
  [service, files] = await Promise.all([startTestService(), startTestHttpsServer()]);
  const video = await makeSpeechVideo({ text: TEXT, width: 540, height: 960, fps: 25, padSeconds: 1.5 });
  files.serveFile("/talk.mp4", video.path, "video/mp4");
  ({ api_key: key } = await service.createKey({ credits: 120 }));
  const submitted = await service.call("POST", "/v1/subtitles", key, {
    video_url: files.url("/talk.mp4"),
    preset: "smash",
    max_duration_seconds: 60,
    subtitles: { profile: "bbc" },
    vocabulary: ["Kubernetes", "北京"],
    replacements: { bread: "sourdough", water: "fucking water" },
    profanity: "mask",
  });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  job = await finish(submitted.body.id);
  report = await readReport(job);
  transcript = JSON.parse((await fetchText(job.subtitles.transcript_url)).body);
  srt = (await fetchText(job.subtitles.srt_url)).body;
});
after(async () => {
  await files?.close();
  await service?.close();
});

test("the job carries its quality summary and links the report, whose summary it is", () => {
  assert.deepEqual(job.quality, report.summary);
  assert.equal(report.profile, "bbc");
  assert.equal(report.limits.max_chars_per_line, 37);
  assert.equal(report.limits.min_gap_seconds, 0.08, "two frames at 25 fps");
  assert.equal(report.job_id, job.id);
  assert.equal(report.summary.cues, parseSrt(srt).length);
  assert.equal(report.summary.cues_breaking_rules, report.cues.filter((c) => c.breaks.length > 0).length);
});

test("smash shows one word at a time, but its SRT holds whole cues within the BBC's 37 characters and two lines", () => {
  const entries = parseSrt(srt);
  assert.ok(entries.length < transcript.words.length / 3, `${entries.length} cues for ${transcript.words.length} words`);
  for (const [i, entry] of entries.entries()) {
    const lines = entry.text.split("\n");
    assert.ok(lines.length <= 2 && lines.every((line) => line.length <= 37 || !line.includes(" ")), JSON.stringify(entry));
    assert.equal(report.cues[i]!.text, entry.text);
  }
});

test("each word has the engine's confidence and its flags; the engine's figure is explained", () => {
  assert.equal(report.words.length, transcript.words.length);
  assert.match(report.engine.confidence ?? "", /posterior/);
  for (const [i, word] of report.words.entries()) {
    assert.equal(word.text, transcript.words[i]!.text);
    assert.ok(word.confidence !== null && word.confidence >= 0 && word.confidence <= 1);
    assert.equal(word.flags.includes("low_confidence"), word.confidence < report.engine.low_confidence_threshold);
  }
  assert.equal(report.summary.low_confidence_words, report.words.filter((w) => w.flags.includes("low_confidence")).length);
  assert.ok(report.speech && report.speech.length > 0);
});

test("vocabulary, replacements and masking reach the SRT and the transcript, the report keeping what was recognised", () => {
  const spoken = transcript.words.map((w) => w.text).join(" ");
  assert.match(spoken, /Kubernetes/);
  assert.match(spoken, /sourdough/);
  assert.match(spoken, /f\*{6} water/);
  assert.doesNotMatch(spoken, /\bbread\b|fucking/);
  const flat = parseSrt(srt).map((e) => e.text.replace(/\n/g, " ")).join(" ");
  assert.equal(flat, spoken);
  const term = report.words.find((w) => w.text.startsWith("Kubernetes"));
  assert.ok(term?.flags.includes("vocabulary"));
  assert.equal(report.words.find((w) => w.text === "sourdough")?.original, "bread");
  // The replacement brought the word in, the mask hid it: what was recognised is "water".
  assert.equal(report.words.find((w) => w.text.startsWith("f*"))?.original, "water");
  assert.match(report.vocabulary.biasing, /pocketsphinx/);
  assert.deepEqual(report.vocabulary.not_biased.map((n) => n.term), ["北京"]);
});

test("rendered again with edited words and the vertical profile: its own report, edited words checked the same way", async () => {
  const words = transcript.words.map(({ text, start, end }) => ({ text, start, end }));
  // A word put where nobody speaks (in the padding before the speech).
  const silent = { text: "Intro", start: 0.1, end: 0.6 };
  const requested = await service.call("POST", `/v1/jobs/${job.id}/renders`, key, { words: [silent, ...words], subtitles: { profile: "vertical" } });
  assert.equal(requested.status, 202, JSON.stringify(requested.body));
  const rendered = await finish(requested.body.id);
  const again = await readReport(rendered);
  assert.deepEqual(rendered.quality, again.summary);
  assert.equal(again.profile, "vertical");
  assert.equal(again.limits.max_lines, 3);
  assert.deepEqual(again.words[0], { text: "Intro", start: 0.1, end: 0.6, confidence: null, flags: ["no_speech"] });
  assert.equal(again.engine.confidence, null, "hand-edited words carry no engine confidence");
  // Words kept from the source keep what its report said of them.
  assert.equal(again.words.find((w) => w.text === "sourdough")?.original, "bread");
  for (const line of (await fetchText(rendered.subtitles.srt_url)).body.split("\n")) assert.ok(line.length <= 25 || !line.includes(" ") || line.includes("-->"), line);
});
