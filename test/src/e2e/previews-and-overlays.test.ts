import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { chromium } from "playwright-core";
import type { Job } from "@caption/shared/api/job";
import type { Transcript } from "@caption/shared/api/transcript";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { previewWords, stillInstant, timelineSeconds } from "@caption/shared/preview/preview-timeline";
import { captionsInFrame, captionTimeline, checkerboard, decodePng, downscale, encodeRgbPng, frameToRgb, overlayCaptions } from "@caption/gpu-worker/render";
import { sheetPreview } from "@caption/gpu-worker/tools";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { frameAt } from "../support/frames.ts";
import { startTestService, type TestService } from "../support/test-service.ts";

// Output kinds, posters and previews through the HTTP API with a real worker: a job rendering both the
// burned video and the transparent overlay, the same job rendered again as the overlay alone, and previews
// the worker draws (over a checkerboard, and over a frame of the job).

const execFileAsync = promisify(execFile);
const TEXT = "Captions laid over any timeline. Editors take them as a layer.";
const [WIDTH, HEIGHT, FPS] = [360, 640, 30];

let service: TestService;
let files: TestHttpsServer;
let key: string;
let source: { path: string; durationSeconds: number };
let both: Job;
let dir: string;

async function download(url: string | null | undefined): Promise<{ type: string | null; body: Buffer }> {
  assert.ok(url, "a link");
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return { type: response.headers.get("content-type"), body: Buffer.from(await response.arrayBuffer()) };
}

async function saved(name: string, url: string | null | undefined): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, (await download(url)).body);
  return file;
}

async function probe(file: string): Promise<Record<string, string>> {
  const { stdout } = await execFileAsync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=codec_name,profile,width,height,nb_read_packets:stream_tags=alpha_mode:format=duration", "-of", "default=noprint_wrappers=1", file]);
  // Tag names as Matroska readers take them, whatever their case (a remux writes ALPHA_MODE).
  return Object.fromEntries(stdout.trim().split("\n").map((line) => line.replace(/^TAG:/, "").replace(/^[^=]+/, (key) => key.toLowerCase()).split("=") as [string, string]));
}

/** What the page saw of one frame: its alpha channel (base64) and how much of it is transparent or opaque. */
interface Seen {
  transparent: number;
  opaque: number;
  corner: number;
  alpha: string;
}

async function completed(id: string): Promise<Job> {
  const job = await service.waitForJob(key, id);
  assert.equal(job.status, "completed", JSON.stringify(job));
  return job;
}

before(async () => {
  [service, files, dir] = await Promise.all([startTestService(), startTestHttpsServer(), mkdtemp(path.join(tmpdir(), "previews-e2e-"))]);
  source = await makeSpeechVideo({ text: TEXT, width: WIDTH, height: HEIGHT, fps: FPS, padSeconds: 0.5 });
  files.serveFile("/clip.mp4", source.path, "video/mp4");
  ({ api_key: key } = await service.createKey({ credits: 120 }));
  const submitted = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/clip.mp4"), preset: "karaoke", output: { kind: "both" } });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  both = await completed(submitted.body.id);
});
after(async () => {
  await files?.close();
  await service?.close();
  if (dir && !process.env.KEEP_TEST_FILES) await rm(dir, { recursive: true, force: true });
});

describe("a job with output kind both", () => {
  test("has the captioned MP4, a VP9-alpha WebM and a ProRes 4444 MOV of the video's size and length, for one charge", async () => {
    assert.deepEqual(both.output, { kind: "both" });
    assert.equal(both.video?.captioned, true);
    const [mp4, webm, mov] = await Promise.all([saved("both.mp4", both.video?.url), saved("both.webm", both.video?.overlay_urls?.webm_url), saved("both.mov", both.video?.overlay_urls?.mov_url)]);
    assert.equal((await probe(mp4)).codec_name, "h264");
    const overlay = await probe(webm);
    assert.deepEqual([overlay.codec_name, overlay.width, overlay.height, overlay.alpha_mode], ["vp9", String(WIDTH), String(HEIGHT), "1"]);
    const prores = await probe(mov);
    assert.deepEqual([prores.codec_name, prores.profile, prores.width, prores.height], ["prores", "4444", String(WIDTH), String(HEIGHT)]);
    // Both constant-rate: one frame per frame of the video (the WebM's unchanged ones show the last again).
    assert.equal(Number(prores.nb_read_packets), Math.round(source.durationSeconds * FPS));
    assert.equal(Number(overlay.nb_read_packets), Math.round(source.durationSeconds * FPS));
    assert.ok(Math.abs(Number(overlay.duration) - source.durationSeconds) <= 1 / FPS + 0.001, `${overlay.duration} s of ${source.durationSeconds}`);
    assert.equal((await download(both.video?.overlay_urls?.mov_url)).type, "video/quicktime");
    const ledger = await service.database.db.selectFrom("credit_ledger").select(["kind", "seconds"]).where("job_id", "=", both.id).where("kind", "=", "charge").execute();
    assert.deepEqual(ledger, [{ kind: "charge", seconds: Math.ceil(source.durationSeconds) }]);
  });

  test("has a poster of the video's size and a strip of 8 frames", async () => {
    const poster = await download(both.video?.poster_url);
    assert.equal(poster.type, "image/jpeg");
    const posterFile = path.join(dir, "poster.jpg");
    await writeFile(posterFile, poster.body);
    assert.deepEqual([(await probe(posterFile)).width, (await probe(posterFile)).height], [String(WIDTH), String(HEIGHT)]);
    const stripFile = await saved("strip.jpg", both.video?.preview_strip_url);
    const strip = await probe(stripFile);
    assert.deepEqual([strip.width, strip.height], [String(8 * 180), "320"]);
  });

  test("the WebM plays in headless Chromium with its alpha: transparent around the captions, opaque in them, right after a seek", async () => {
    const file = await saved("played.webm", both.video?.overlay_urls?.webm_url);
    const webm = await readFile(file);
    // A frame a few after the last key frame: a seek there decodes colour and alpha from that key frame on.
    const { stdout } = await execFileAsync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", file]);
    // One "time,flags," line a packet (a blank line after each: its alpha's side data).
    const packets = stdout.split("\n").filter((line) => line.includes(",")).map((line) => ({ t: Number(line.split(",")[0]), key: line.split(",")[1]!.startsWith("K") }));
    const lastKey = packets.findLastIndex((packet) => packet.key);
    assert.ok(lastKey > 0, "a key frame after the first (one every 4 s)");
    const target = packets[Math.min(packets.length - 1, lastKey + 5)]!.t;
    const decoded = await execFileAsync("ffmpeg", ["-v", "error", "-c:v", "libvpx-vp9", "-i", file, "-vf", `trim=start=${target},alphaextract`, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"], { encoding: "buffer", maxBuffer: 1 << 24 });
    const profile = await mkdtemp(path.join(tmpdir(), "caption-chromium-"));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
    try {
      const page = await browser.newPage();
      // One origin for the page and the video, so the frame drawn on a canvas can be read back.
      await page.route("https://overlay.test/**", (route) =>
        route.request().url().endsWith(".webm")
          ? route.fulfill({ status: 200, body: webm, contentType: "video/webm" })
          : route.fulfill({ status: 200, body: "<!doctype html><video muted playsinline></video>", contentType: "text/html" }),
      );
      await page.goto("https://overlay.test/");
      // In the page (a string: this package is type-checked without the DOM's types): play, seek to 1.5 s and to
      // the target frame, draw each frame on a canvas and read back its alpha.
      const seen = (await page.evaluate(`(async () => {
        const video = document.querySelector("video");
        // From a blob, which Chromium can seek in (the route answers no ranges).
        video.src = URL.createObjectURL(await (await fetch("captions.webm")).blob());
        await video.play();
        await new Promise((resolve) => video.requestVideoFrameCallback(() => resolve()));
        video.pause();
        const canvas = document.createElement("canvas");
        [canvas.width, canvas.height] = [video.videoWidth, video.videoHeight];
        const context = canvas.getContext("2d");
        const alphaAt = async (time) => {
          video.currentTime = time;
          await new Promise((resolve) => video.addEventListener("seeked", resolve, { once: true }));
          // Cleared first: a frame drawn over the last one would blend its alpha with it.
          context.clearRect(0, 0, canvas.width, canvas.height);
          context.drawImage(video, 0, 0);
          const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
          let [transparent, opaque, text] = [0, 0, ""];
          for (let i = 3; i < pixels.length; i += 4) {
            if (pixels[i] === 0) transparent++;
            else if (pixels[i] === 255) opaque++;
            text += String.fromCharCode(pixels[i]);
          }
          return { transparent, opaque, corner: pixels[3], alpha: btoa(text) };
        };
        const early = await alphaAt(1.5);
        const late = await alphaAt(${target} + 0.01);
        return { width: video.videoWidth, height: video.videoHeight, duration: video.duration, early, late };
      })()`)) as { width: number; height: number; duration: number; early: Seen; late: Seen };
      assert.deepEqual([seen.width, seen.height, seen.early.corner], [WIDTH, HEIGHT, 0]);
      assert.ok(Math.abs(seen.duration - source.durationSeconds) < 0.1, `${seen.duration} s`);
      assert.ok(seen.early.transparent > 0.8 * WIDTH * HEIGHT, `${seen.early.transparent} transparent pixels`);
      assert.ok(seen.early.opaque > 200, `${seen.early.opaque} opaque pixels: the captions show`);
      // After the seek, Chromium's alpha is the alpha of that frame decoded from the start.
      assert.ok(Buffer.from(seen.late.alpha, "base64").equals(decoded.stdout), `at ${target} s: ${seen.late.opaque} opaque pixels`);
    } finally {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    }
  });
});

describe("rendered again as the overlay alone", () => {
  let overlay: Job;
  before(async () => {
    const submitted = await service.call("POST", `/v1/jobs/${both.id}/renders`, key, { preset: "box", output: { kind: "overlay" } });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    overlay = await completed(submitted.body.id);
  });

  test("its video is the source uncaptioned, copied into MP4, beside the overlay files, a poster and a strip", async () => {
    assert.deepEqual(overlay.output, { kind: "overlay" });
    assert.equal(overlay.video?.captioned, false);
    const video = await saved("uncaptioned.mp4", overlay.video?.url);
    const frameHashes = async (file: string) => (await execFileAsync("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v", "-f", "framemd5", "-"])).stdout.split("\n").filter((line) => line && !line.startsWith("#")).map((line) => line.split(",").at(-1));
    assert.deepEqual(await frameHashes(video), await frameHashes(source.path));
    assert.ok(overlay.video?.overlay_urls?.webm_url && overlay.video.overlay_urls.mov_url);
    assert.equal((await download(overlay.video.poster_url)).type, "image/jpeg");
    assert.equal((await download(overlay.video.preview_strip_url)).type, "image/jpeg");
  });
});

describe("previews drawn by the worker", () => {
  const post = (body: unknown) => fetch(`${service.url}/v1/previews`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });

  test("a PNG over the checkerboard is the very picture the painter makes of that frame", async () => {
    const request = { preset: "highlight" as const, text: "Your captions look like this", width: 540, height: 960, format: "png" as const };
    const response = await post(request);
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get("content-type"), "image/png");
    const words = previewWords(request);
    const style = resolveStyle({ preset: request.preset, video: { width: request.width, height: request.height } });
    const timeline = captionTimeline(words, style, { durationSeconds: timelineSeconds(words, undefined), frameRate: 30 });
    const frame = checkerboard(request.width, request.height);
    overlayCaptions(frame, captionsInFrame(timeline, Math.floor(stillInstant(words, undefined) * 30 + 1e-6)), timeline.band);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(await encodeRgbPng(frame.width, frame.height, frameToRgb(frame))));
  });

  test("a WebP still and an MP4 clip", async () => {
    const webp = await post({ preset: "glow", width: 720, height: 1280, format: "webp" });
    assert.equal(webp.headers.get("content-type"), "image/webp");
    assert.equal(Buffer.from(await webp.arrayBuffer()).subarray(8, 12).toString(), "WEBP");
    const mp4 = await post({ preset: "smash", text: "Pop goes every word", width: 540, height: 960, format: "mp4", duration: 1.5 });
    assert.equal(mp4.status, 200);
    assert.equal(mp4.headers.get("content-type"), "video/mp4");
    const file = path.join(dir, "clip.mp4");
    await writeFile(file, Buffer.from(await mp4.arrayBuffer()));
    const clip = await probe(file);
    assert.deepEqual([clip.codec_name, clip.width, clip.height, clip.nb_read_packets], ["h264", "540", "960", "45"]);
  });

  test("a still over a frame of the job shows that frame of its video, as rendered", async () => {
    const transcript = (await (await fetch(both.subtitles.transcript_url!)).json()) as Transcript;
    const word = transcript.words[Math.floor(transcript.words.length / 2)]!;
    const at = Math.floor(((word.start + word.end) / 2) * FPS) / FPS;
    const response = await post({ preset: "karaoke", words: transcript.words.map(({ text, start, end }) => ({ text, start, end })), at, width: WIDTH, height: HEIGHT, format: "png", background: { job_id: both.id, at } });
    assert.equal(response.status, 200, await response.clone().text());
    const pngFile = path.join(dir, "background-preview.png");
    await writeFile(pngFile, Buffer.from(await response.arrayBuffer()));
    const size = { width: WIDTH, height: HEIGHT };
    const [previewed, rendered] = await Promise.all([frameAt(pngFile, 0, size), frameAt(await saved("both-again.mp4", both.video?.url), at, size)]);
    let sum = 0;
    for (let i = 0; i < previewed.length; i++) sum += Math.abs(previewed[i]! - rendered[i]!);
    // The job's video is H.264 at CRF 20, the preview lossless: the same picture but for the codec's loss.
    assert.ok(sum / previewed.length < 3, `mean difference ${(sum / previewed.length).toFixed(2)}`);
  });
});

test("npm run presets:sheet makes the README's contact sheet of previews the running service draws", async () => {
  const { api_key: sheetKey } = await service.createKey();
  const out = path.join(dir, "presets.png");
  const { stdout } = await execFileAsync(process.execPath, ["gpu-worker/src/cli/presets-sheet.ts", "--url", service.url, "--key", sheetKey, "--out", out], { cwd: REPO_ROOT });
  assert.equal(stdout.trim(), out);
  const sheet = await decodePng(await readFile(out));
  // The first thumbnail is classic's portrait preview, shrunk to a quarter, below its label.
  const response = await fetch(`${service.url}/v1/previews`, { method: "POST", headers: { authorization: `Bearer ${sheetKey}`, "content-type": "application/json" }, body: JSON.stringify(sheetPreview("classic", "portrait")) });
  const thumb = downscale(await decodePng(Buffer.from(await response.arrayBuffer())), 4);
  for (let row = 0; row < thumb.height; row += 7) {
    const at = ((16 + 44 + row) * sheet.width + 16) * 4;
    assert.deepEqual(sheet.data.subarray(at, at + thumb.width * 4), thumb.data.subarray(row * thumb.width * 4, (row + 1) * thumb.width * 4), `row ${row}`);
  }
});
