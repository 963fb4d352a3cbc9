import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { Job } from "@caption/shared/api/job";
import type { Preset } from "@caption/shared/api/preset";
import type { Transcript } from "@caption/shared/api/transcript";
import { makeNonVideoFile, makeSpeechVideo } from "@caption/gpu-worker/testing";
import { builtStudio, docsScreenshot, launchStudioBrowser, watchProblems, type StudioBrowser } from "../support/studio.ts";
import { startTestService, type TestService } from "../support/test-service.ts";

// The studio in a real browser (Debian's Chromium) against the real service: a person signs in, uploads a spoken
// clip, picks a look on it, watches the job, fixes a word, renders again and finds the fix in the SRT; and the
// refusals they may meet show the API's own words. The run writes docs/studio.md's screenshots.

const TEXT = "Captions help everyone follow the story.";
let service: TestService;
let browser: StudioBrowser;
let clip: { path: string; durationSeconds: number };
let presets: Preset[];

before(async () => {
  const [dir, video] = await Promise.all([builtStudio(), makeSpeechVideo({ text: TEXT, width: 360, height: 640, fps: 25, padSeconds: 0.3 })]);
  clip = video;
  [service, browser] = await Promise.all([startTestService({ env: { STUDIO_DIR: dir } }), launchStudioBrowser()]);
  presets = (await service.call("GET", "/v1/presets")).body.presets;
});
after(async () => {
  await browser?.close();
  await service?.close();
});

const JOB_TIMEOUT = 240_000;

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${service.url}/`);
  assert.equal(new URL(page.url()).pathname, "/studio/");
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("status").filter({ hasText: /Balance: \d+ s available/ }).waitFor();
}

const jobIdOf = (page: Page) => /#\/job\/(job_\w+)$/.exec(page.url())?.[1] ?? "";

describe("a person captions a file, fixes a word and renders again", () => {
  let key: string;
  let page: Page;
  let problems: string[];
  let firstJob: Job;

  before(async () => {
    ({ api_key: key } = await service.createKey({ credits: 600 }));
    page = await browser.context.newPage();
    problems = watchProblems(page);
  });
  after(() => page?.close());

  test("sign in, upload, and every preset drawn on the person's own video", async () => {
    await signIn(page, key);
    await page.getByLabel("Video file").setInputFiles(clip.path);
    const gallery = page.getByRole("radiogroup", { name: "Preset" });
    await gallery.locator("img").nth(presets.length - 1).waitFor({ timeout: 60_000 });
    const names = await gallery.getByRole("radio").evaluateAll((radios) => radios.map((radio) => (radio as unknown as { labels: { textContent: string | null }[] | null }).labels?.[0]?.textContent?.trim()));
    assert.deepEqual(names, presets.map((preset) => preset.name));
    const sizes = await gallery.locator("img").evaluateAll((images) => images.map((image) => {
      const { naturalWidth, naturalHeight } = image as unknown as { naturalWidth: number; naturalHeight: number };
      return `${naturalWidth}x${naturalHeight}`;
    }));
    assert.deepEqual(new Set(sizes), new Set(["360x640"]));
    await page.getByRole("radio", { name: "Karaoke" }).check();
    await page.getByRole("img", { name: "Preview of Karaoke on your video" }).waitFor();
    await page.locator(".look-preview[aria-busy=false]").waitFor();
    await docsScreenshot(page, "gallery", page.getByRole("heading", { name: "Choose the look" }));
  });

  test("the preview redraws after a style change; a value that breaks its rule says the rule and is not sent", async () => {
    const preview = page.getByRole("img", { name: "Preview of Karaoke on your video" });
    const before = await preview.getAttribute("src");
    const beforePicture = await preview.screenshot();
    await page.getByLabel("Text color").fill("#FF2020");
    await page.getByLabel("Text color").press("Enter");
    type Found = { document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null } };
    await page.waitForFunction((old) => (globalThis as unknown as Found).document.querySelector(".look-preview img")?.getAttribute("src") !== old, before);
    await preview.evaluate((image) => (image as unknown as { decode(): Promise<void> }).decode());
    assert.equal(beforePicture.equals(await preview.screenshot()), false, "the picture changed");
    const size = page.getByLabel("Font size");
    await size.fill("999");
    await size.press("Tab");
    assert.equal(await size.getAttribute("aria-invalid"), "true");
    const rule = await page.locator(`#${await size.getAttribute("aria-describedby")}`).textContent();
    assert.equal(rule, "Font size must be a number from 12 to 240");
  });

  test("Caption it: one bar per stage while it runs, then the video, its files and the words", async () => {
    await page.getByRole("button", { name: "Caption it" }).click();
    await page.waitForURL(/#\/job\/job_/u);
    for (const stage of ["Upload", "Ingest", "Transcribe", "Render"]) await page.getByRole("progressbar", { name: stage }).waitFor();
    // The picture is the more telling mid-way; a quick job may be past that already, and the bars show it.
    await page.getByRole("heading", { name: /Progress: (transcribing|rendering)/u }).waitFor({ timeout: 30_000 }).catch(() => undefined);
    await docsScreenshot(page, "progress");
    await page.getByLabel("Captioned video").waitFor({ timeout: JOB_TIMEOUT });
    firstJob = await service.waitForJob(key, jobIdOf(page));
    assert.equal(firstJob.status, "completed");
    for (const name of ["Download MP4", "Download SRT", "Download WebVTT", "Download ASS", "Download transcript", "Download quality report"]) {
      await page.getByRole("link", { name }).waitFor();
    }
    const transcript = (await (await fetch(firstJob.subtitles.transcript_url!)).json()) as Transcript;
    const items = page.getByRole("list", { name: "Transcript" }).getByRole("listitem");
    await items.first().waitFor();
    assert.equal(await items.count(), transcript.words.length);
    assert.equal(await page.getByRole("status").textContent(), `Balance: ${600 - firstJob.usage.billed_seconds} s available`);
  });

  test("a word edited in the list is in the SRT of the render made from it", async () => {
    const items = page.getByRole("list", { name: "Transcript" }).getByRole("listitem");
    await items.nth(1).click();
    const field = page.getByRole("textbox", { name: "Word text" });
    const transcript = (await (await fetch(firstJob.subtitles.transcript_url!)).json()) as Transcript;
    assert.equal(await field.inputValue(), transcript.words[1]!.text);
    await field.fill("Zanzibar");
    await field.press("Enter");
    await items.nth(1).getByText("Zanzibar").waitFor();
    await docsScreenshot(page, "editor", page.getByRole("heading", { name: "Fix the words" }));
    await page.getByRole("button", { name: "Render again" }).click();
    await page.waitForURL((url) => url.hash.startsWith("#/job/") && !url.hash.endsWith(firstJob.id));
    await page.getByRole("link", { name: "Download SRT" }).waitFor({ timeout: JOB_TIMEOUT });
    const srt = await (await fetch((await page.getByRole("link", { name: "Download SRT" }).getAttribute("href"))!)).text();
    assert.match(srt, /Zanzibar/);
    const render = await service.waitForJob(key, jobIdOf(page));
    assert.equal(render.source_job_id, firstJob.id);
    assert.deepEqual(problems, []);
  });

  test("a word written as HTML shows as text, and runs nothing", async () => {
    const transcript = (await (await fetch(firstJob.subtitles.transcript_url!)).json()) as Transcript;
    const hostile = "<img src=x onerror=alert(1)>";
    const words = transcript.words.map(({ text, start, end }, i) => ({ text: i === 0 ? hostile : text, start, end }));
    const created = await service.call("POST", `/v1/jobs/${firstJob.id}/renders`, key, { words });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    await service.waitForJob(key, created.body.id, undefined, JOB_TIMEOUT);
    await page.goto(`${service.url}/studio/#/job/${created.body.id}`);
    const list = page.getByRole("list", { name: "Transcript" });
    await list.getByRole("listitem").first().getByText(hostile).waitFor();
    assert.equal(await list.locator("img").count(), 0);
    assert.deepEqual(problems, []);
  });
});

test("a reload mid-upload resumes at the service's offset: the same upload, no byte sent twice", async () => {
  const { api_key: own, account_id: account } = await service.createKey({ credits: 60 });
  const file = path.join(await mkdtemp(path.join(tmpdir(), "studio-upload-")), "long-talk.mp4");
  const size = 3 * 1024 * 1024;
  await writeFile(file, randomBytes(size));
  const page = await browser.context.newPage();
  await signIn(page, own);
  // A slow line (512 KiB/s up), so the reload comes while the bytes are still going.
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 512 * 1024 });
  const offsets: number[] = [];
  page.on("request", (request) => request.method() === "PATCH" && offsets.push(Number(request.headers()["upload-offset"])));
  await page.getByLabel("Video file").setInputFiles(file);
  // Functions, not strings: the page's CSP refuses eval, the tests' strings included.
  type Progress = { document: { getElementById(id: string): { value: number } | null } };
  const uploaded = (percent: number) => page.waitForFunction((least) => ((globalThis as unknown as Progress).document.getElementById("upload-progress")?.value ?? 0) >= least, percent, { timeout: 60_000 });
  await uploaded(25);
  await page.reload();
  await page.getByRole("status").filter({ hasText: /Balance/ }).waitFor();
  // The bar reads 100 % once the browser has sent the last byte; the upload is complete when the service's answer
  // to that PATCH says it holds them all.
  const stored = page.waitForResponse((response) => response.request().method() === "PATCH" && response.headers()["upload-offset"] === String(size), { timeout: 60_000 });
  await page.getByLabel("Video file").setInputFiles(file);
  await page.getByText("(resumed)").waitFor();
  await uploaded(100);
  assert.equal((await stored).status(), 204);
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  assert.equal(offsets[0], 0);
  assert.ok(offsets.length === 2 && offsets[1]! > 0, `PATCH offsets ${offsets.join(", ")}`);
  const uploads = await service.database.db.selectFrom("uploads").select(["size_bytes", "completed_at"]).where("account_id", "=", account).execute();
  assert.equal(uploads.length, 1);
  assert.equal(uploads[0]!.size_bytes, size);
  assert.ok(uploads[0]!.completed_at);
  await page.close();
  await rm(path.dirname(file), { recursive: true, force: true });
});

describe("refusals show the API's message", () => {
  test("a wrong key", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${service.url}/studio/`);
    await page.getByLabel("API key").fill("ck_live_not_a_key_of_this_service");
    await page.getByRole("button", { name: "Sign in" }).click();
    const api = await service.call("GET", "/v1/usage", "ck_live_not_a_key_of_this_service");
    await page.getByRole("alert").filter({ hasText: `${api.body.error.message} (UNAUTHORIZED)` }).waitFor();
    await page.close();
  });

  test("an empty balance", async () => {
    const { api_key: broke } = await service.createKey({ credits: 0 });
    const page = await browser.context.newPage();
    await signIn(page, broke);
    await page.getByLabel("Video URL").fill("https://videos.example.com/talk.mp4");
    await page.getByRole("button", { name: "Use this URL" }).click();
    await page.getByRole("button", { name: "Caption it" }).click();
    const api = await service.call("POST", "/v1/subtitles", broke, { video_url: "https://videos.example.com/talk.mp4" });
    assert.equal(api.status, 402);
    await page.getByRole("alert").filter({ hasText: `${api.body.error.message} (INSUFFICIENT_CREDITS)` }).waitFor();
    await page.close();
  });

  test("a text file named .mp4: the previews say so, and the job fails with the API's code and message", async () => {
    const { api_key: own } = await service.createKey({ credits: 60 });
    const page = await browser.context.newPage();
    await signIn(page, own);
    await page.getByLabel("Video file").setInputFiles(await makeNonVideoFile());
    await page.getByRole("alert").filter({ hasText: /cannot be a preview's background: .*\(SOURCE_NOT_RENDERABLE\)/ }).first().waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Caption it" }).click();
    await page.waitForURL(/#\/job\/job_/u);
    const job = await service.waitForJob(own, jobIdOf(page), undefined, JOB_TIMEOUT);
    assert.equal(job.error?.code, "UNSUPPORTED_FORMAT");
    await page.getByRole("alert").filter({ hasText: `The job failed: ${job.error.message} (UNSUPPORTED_FORMAT)` }).waitFor({ timeout: 30_000 });
    await page.close();
  });
});
