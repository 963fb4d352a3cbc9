import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import type { Transcript } from "@caption/shared/api/transcript";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { accessibilityViolations, builtStudio, isFocused, launchStudioBrowser, tabTo, watchProblems, type StudioBrowser } from "../support/studio.ts";
import { startTestService, type TestService } from "../support/test-service.ts";

// The whole studio by keyboard alone (Tab, arrows, Enter, typing; the file chooser opened from the keyboard), and
// axe-core on every view it passes: no serious or critical violation anywhere.

let service: TestService;
let browser: StudioBrowser;
let page: Page;
let problems: string[];
let key: string;
let clip: { path: string };
const JOB_TIMEOUT = 240_000;
const views: Record<string, string[]> = {};

before(async () => {
  const [dir, video] = await Promise.all([builtStudio(), makeSpeechVideo({ text: "Keyboards reach every part of the page.", width: 360, height: 640, fps: 25, padSeconds: 0.3 })]);
  clip = video;
  [service, browser] = await Promise.all([startTestService({ env: { STUDIO_DIR: dir } }), launchStudioBrowser()]);
  ({ api_key: key } = await service.createKey({ credits: 600 }));
  page = await browser.context.newPage();
  problems = watchProblems(page);
});
after(async () => {
  await browser?.close();
  await service?.close();
});

const check = async (view: string) => (views[view] = await accessibilityViolations(page));
const press = (keys: string) => page.keyboard.press(keys);
const jobId = () => /#\/job\/(job_\w+)$/u.exec(page.url())?.[1] ?? "";

test("sign in, upload, choose a look, caption, fix a word and render again, by keyboard alone", async () => {
  await page.goto(`${service.url}/studio/`);
  await check("sign in");
  await tabTo(page, page.getByLabel("API key"));
  await page.keyboard.type(key);
  await press("Enter");
  await page.getByRole("status").filter({ hasText: "Balance: 600 s available" }).waitFor();
  await check("new captions");

  await tabTo(page, page.getByLabel("Video file"));
  const chooser = page.waitForEvent("filechooser");
  await press("Space");
  await (await chooser).setFiles(clip.path);
  const gallery = page.getByRole("radiogroup", { name: "Preset" });
  await gallery.locator("img").nth(15).waitFor({ timeout: 60_000 });
  await tabTo(page, gallery.getByRole("radio", { name: "Classic" }));
  await press("ArrowRight");
  await press("ArrowRight");
  assert.equal(await gallery.getByRole("radio", { name: "Smash" }).isChecked(), true);
  await page.getByRole("img", { name: "Preview of Smash on your video" }).waitFor();
  await tabTo(page, page.getByLabel("Text case"));
  await press("ArrowDown");
  await page.locator(".look-preview[aria-busy=false]").waitFor();
  await check("choose the look");

  await tabTo(page, page.getByRole("button", { name: "Caption it" }));
  await press("Enter");
  await page.getByRole("progressbar", { name: "Transcribe" }).waitFor();
  await check("progress");
  await page.getByLabel("Captioned video").waitFor({ timeout: JOB_TIMEOUT });
  const job = await service.waitForJob(key, jobId());
  const transcript = (await (await fetch(job.subtitles.transcript_url!)).json()) as Transcript;

  const words = page.getByRole("list", { name: "Transcript" }).getByRole("listitem");
  await tabTo(page, words.nth(2).getByRole("button"));
  await press("Enter");
  const field = page.getByRole("textbox", { name: "Word text" });
  assert.equal(await isFocused(field), true, "the field takes the focus");
  assert.equal(await field.inputValue(), transcript.words[2]!.text);
  await press("Control+A");
  await page.keyboard.type("Kilimanjaro");
  await press("Alt+ArrowRight");
  await press("Enter");
  await words.nth(2).getByText("Kilimanjaro").waitFor();
  // The focus goes back to the word.
  await page.waitForFunction(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id === "word-2", undefined, { timeout: 5000 });
  await check("result and editor");

  await tabTo(page, page.getByRole("button", { name: "Render again" }));
  await press("Enter");
  await page.waitForURL((url) => url.hash.startsWith("#/job/") && !url.hash.endsWith(job.id));
  const render = await service.waitForJob(key, jobId(), undefined, JOB_TIMEOUT);
  const edited = ((await (await fetch(render.subtitles.transcript_url!)).json()) as Transcript).words[2]!;
  assert.equal(edited.text, "Kilimanjaro");
  assert.equal(Math.round((edited.start - transcript.words[2]!.start) * 1000), 50, "Alt+→ moved the start by 0.05 s");
  assert.match(await (await fetch(render.subtitles.srt_url!)).text(), /Kilimanjaro/);

  await page.getByLabel("Captioned video").waitFor({ timeout: JOB_TIMEOUT });
  await tabTo(page, page.getByRole("link", { name: "Jobs" }));
  await press("Enter");
  const table = page.getByRole("table", { name: "Jobs" });
  await table.getByRole("link", { name: render.id }).waitFor();
  assert.deepEqual(await table.getByRole("link").allTextContents(), [render.id, job.id]);
  await check("jobs");
  assert.deepEqual(problems, []);
});

test("axe-core finds no serious or critical violation on any view", () => {
  assert.deepEqual(views, Object.fromEntries(Object.keys(views).map((view) => [view, []])));
  assert.deepEqual(Object.keys(views), ["sign in", "new captions", "choose the look", "progress", "result and editor", "jobs"]);
});
