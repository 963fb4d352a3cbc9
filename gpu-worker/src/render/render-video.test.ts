import { test } from "node:test";
import assert from "node:assert/strict";
import { access, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobFailure } from "@caption/shared/errors/codes";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import type { Cue } from "./cue-builder.ts";
import { planCaptions, renderCaptionedVideo } from "./render-video.ts";

const WIDTH = 1080;
const HEIGHT = 1920;
const FPS = 30;

const dir = await mkdtemp(join(tmpdir(), "render-video-"));
test.after(() => rm(dir, { recursive: true, force: true }));

async function makeSource(name: string, seconds: number, size = `${WIDTH}x${HEIGHT}`, picture = "testsrc2"): Promise<string> {
  const path = join(dir, name);
  await runFfmpeg({
    args: [
      "-hide_banner", "-loglevel", "error", "-y",
      "-f", "lavfi", "-i", `${picture}${picture.includes("=") ? ":" : "="}size=${size}:rate=${FPS}`,
      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
      "-t", String(seconds),
      "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-pix_fmt", "yuv420p",
      "-c:a", "aac", "-f", "mp4", path,
    ],
  });
  return path;
}

const cue = (start: number, end: number, text: string): Cue => ({
  start,
  end,
  lines: [{ words: text.split(" ").map((t) => ({ text: t, start, end })) }],
});

/** One frame (by index) as RGB bytes (frames of the test's full size unless the video is smaller). */
async function frameRgb(path: string, index: number): Promise<Uint8Array> {
  const out = join(dir, `frame-${index}-${Math.random().toString(36).slice(2)}.rgb`);
  await runFfmpeg({
    args: ["-hide_banner", "-loglevel", "error", "-y", "-i", path, "-vf", `select=eq(n\\,${index})`, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", out],
  });
  return new Uint8Array(await readFile(out));
}

/** Mean absolute difference of two RGB frames over rows [top, bottom) and columns [left, right). */
function meanDiff(a: Uint8Array, b: Uint8Array, area: { top: number; bottom: number; left: number; right: number }, width = WIDTH, height = HEIGHT): number {
  let sum = 0;
  let count = 0;
  for (let y = Math.max(0, Math.floor(area.top)); y < Math.min(height, area.bottom); y++) {
    for (let x = Math.max(0, Math.floor(area.left)); x < Math.min(width, area.right); x++) {
      for (let c = 0; c < 3; c++) {
        const i = (y * width + x) * 3 + c;
        sum += Math.abs(a[i]! - b[i]!);
        count++;
      }
    }
  }
  return sum / count;
}

const exists = (path: string) => access(path).then(() => true, () => false);

test("renders captions into a video of the input's size, rate, duration and audio", async () => {
  const input = await makeSource("source.mp4", 4);
  const media = await probeMedia(input);
  const style = resolveStyle({ preset: "classic", video: { width: media.width, height: media.height } });
  const cues = [cue(1, 2, "Hello captions"), cue(3, 4, "until the end")];
  const output = join(dir, "captioned.mp4");
  const progress: number[] = [];

  const files = { inputPath: input, outputPath: output };
  const { framesDrawn } = await renderCaptionedVideo({ ...files, cues, style, media, encoder: X264_ENCODER, onProgress: (f) => progress.push(f) });
  // cue, clear, cue: the picture starts clear, and the closing frame reuses the last one
  assert.equal(framesDrawn, 3);
  assert.ok(progress.length > 0 && progress.every((f) => f >= 0 && f <= 1) && progress.at(-1) === 1);

  const out = await probeMedia(output);
  assert.deepEqual([out.width, out.height, out.frameRate, out.hasAudio, out.audioCodec], [WIDTH, HEIGHT, FPS, true, "aac"]);
  assert.ok(Math.abs(out.durationSeconds - media.durationSeconds) <= 0.1, `${out.durationSeconds} vs ${media.durationSeconds}`);

  const { layouts } = planCaptions(cues, style, media.durationSeconds);
  const block = layouts[0]!.block;
  const captionArea = { top: block.y, bottom: block.y + block.height, left: block.x, right: block.x + block.width };
  const wholeFrame = { top: 0, bottom: HEIGHT, left: 0, right: WIDTH };

  // Frame 45 = 1.5 s: caption shown. Frame 15 = 0.5 s and frame 75 = 2.5 s: none.
  const [src45, out45, src15, out15, src75, out75] = await Promise.all(
    [45, 15, 75].flatMap((n) => [frameRgb(input, n), frameRgb(output, n)]),
  );
  assert.ok(meanDiff(src45!, out45!, captionArea) > 40, "caption drawn at 1.5 s");
  assert.ok(meanDiff(src15!, out15!, wholeFrame) < 3, "untouched before the first cue");
  assert.ok(meanDiff(src75!, out75!, wholeFrame) < 3, "untouched between cues");
  // The outside of the band is the source even while a caption shows.
  assert.ok(meanDiff(src45!, out45!, { ...wholeFrame, bottom: block.y - 50 }) < 3);

  // The last cue runs to the end of the video: the final frame still shows it.
  const last = Math.round(media.durationSeconds * FPS) - 1;
  const [srcLast, outLast] = await Promise.all([frameRgb(input, last), frameRgb(output, last)]);
  const lastBlock = layouts[1]!.block;
  assert.ok(meanDiff(srcLast!, outLast!, { top: lastBlock.y, bottom: lastBlock.y + lastBlock.height, left: lastBlock.x, right: lastBlock.x + lastBlock.width }) > 40, "caption on the last frame");
});

test("caption colours and placement survive the conversion for the overlay", async () => {
  const [width, height] = [640, 360];
  const input = await makeSource("grey.mp4", 2, `${width}x${height}`, "color=c=0x808080");
  const media = await probeMedia(input);
  const background = { type: "box" as const, color: "#E03020", opacity: 1 };
  const style = resolveStyle({ preset: "background", style: { background, text_color: "#20C040" }, video: { width, height } });
  const cues = [cue(0, 2, "Colour test")];
  const output = join(dir, "colours.mp4");
  await renderCaptionedVideo({ inputPath: input, outputPath: output, cues, style, media, encoder: X264_ENCODER });

  const { layouts, band } = planCaptions(cues, style, media.durationSeconds);
  const layout = layouts[0]!;
  assert.ok(band.x > 0 && band.width < width, `the band is narrower than the frame: ${JSON.stringify(band)}`);
  const frame = await frameRgb(output, 30);
  const at = (x: number, y: number) => Array.from(frame.subarray((Math.round(y) * width + Math.round(x)) * 3, (Math.round(y) * width + Math.round(x)) * 3 + 3));
  const close = (got: number[], expected: number[], what: string) =>
    assert.ok(got.every((v, c) => Math.abs(v - expected[c]!) <= 12), `${what}: got ${got.join(",")}, expected ${expected.join(",")}`);
  const middleY = layout.block.y + layout.block.height / 2;
  // Inside the box's padding, left of the text: the box colour. Well left of the box: the source's grey.
  close(at(layout.block.x - 0.15 * layout.fontPx, middleY), [0xe0, 0x30, 0x20], "box");
  close(at(layout.block.x - 0.6 * layout.fontPx, middleY), [0x80, 0x80, 0x80], "outside the box");
  // The text's own colour somewhere along the middle of its line.
  const row = Array.from({ length: Math.floor(layout.block.width) }, (_, i) => at(layout.block.x + i, layout.lines[0]!.baseline - 0.3 * layout.fontPx));
  assert.ok(row.some((rgb) => rgb.every((v, c) => Math.abs(v - [0x20, 0xc0, 0x40][c]!) <= 16)), "text colour drawn");
});

test("a video without cues comes out uncaptioned", async () => {
  const input = await makeSource("plain.mp4", 1, "320x240");
  const media = await probeMedia(input);
  const style = resolveStyle({ preset: "classic", video: { width: media.width, height: media.height } });
  const output = join(dir, "plain-out.mp4");
  await renderCaptionedVideo({ inputPath: input, outputPath: output, cues: [], style, media, encoder: X264_ENCODER });
  const out = await probeMedia(output);
  assert.deepEqual([out.width, out.height, out.hasAudio], [320, 240, true]);
});

test("an animated preset sends a picture for every video frame while it moves, and holds still after", async () => {
  const [width, height] = [540, 960];
  const input = await makeSource("still.mp4", 2, `${width}x${height}`, "color=c=0x336699");
  const media = await probeMedia(input);
  const style = resolveStyle({ preset: "karaoke", video: { width, height } });
  const words = [{ text: "sweeping", start: 0.5, end: 1.1 }, { text: "fill", start: 1.1, end: 1.4 }];
  const output = join(dir, "karaoke.mp4");
  const { framesDrawn } = await renderCaptionedVideo({
    inputPath: input, outputPath: output, cues: [{ start: 0.5, end: 1.8, lines: [{ words }] }], style, media, encoder: X264_ENCODER,
  });
  // 0.9 s of sweeping at 30 fps, plus the clears.
  assert.ok(framesDrawn >= 27 && framesDrawn <= 32, `${framesDrawn}`);
  const [band] = [planCaptions([{ start: 0.5, end: 1.8, lines: [{ words }] }], style, 2).band];
  const area = { top: band.y, bottom: band.y + band.height, left: 0, right: width };
  const diff = async (a: number, b: number) => meanDiff(await frameRgb(output, a), await frameRgb(output, b), area, width, height);
  assert.ok((await diff(21, 24)) > 0.5, "fill moves at 0.7–0.8 s");
  assert.ok((await diff(45, 50)) < 0.2, "still after the last word");
});

test("the source is read no further than the inspected duration: the output never runs longer than is billed", async () => {
  const input = await makeSource("four-seconds.mp4", 4, "320x240");
  const media = await probeMedia(input);
  // As if inspection had found 1.5 s: the render stops there whatever the file holds.
  const billed = { ...media, durationSeconds: 1.5 };
  const style = resolveStyle({ preset: "classic", video: { width: 320, height: 240 } });
  const output = join(dir, "cut-at-billed.mp4");
  await renderCaptionedVideo({ inputPath: input, outputPath: output, cues: [cue(0.2, 3.5, "cut")], style, media: billed, encoder: X264_ENCODER });
  const out = await probeMedia(output);
  assert.ok(out.durationSeconds <= 1.5 + 1 / FPS + 0.001 && out.durationSeconds > 1.4, `${out.durationSeconds} s`);
});

test("an unreadable input fails the job with RENDER_FAILED and leaves no output", async () => {
  const input = await makeSource("short.mp4", 1, "320x240");
  const media = await probeMedia(input);
  const style = resolveStyle({ preset: "classic", video: { width: 320, height: 240 } });
  const output = join(dir, "broken-out.mp4");
  await assert.rejects(
    renderCaptionedVideo({ inputPath: join(dir, "missing.mp4"), outputPath: output, cues: [cue(0.2, 0.8, "hi")], style, media, encoder: X264_ENCODER }),
    (error) => error instanceof JobFailure && error.code === "RENDER_FAILED",
  );
  assert.equal(await exists(output), false);
});

test("abort mid-render rejects, stops ffmpeg and leaves no output", async () => {
  const input = await makeSource("long.mp4", 20);
  const media = await probeMedia(input);
  const style = resolveStyle({ preset: "classic", video: { width: media.width, height: media.height } });
  const cues = Array.from({ length: 19 }, (_, i) => cue(i + 0.2, i + 0.9, `word number ${i}`));
  const output = join(dir, "aborted.mp4");
  const controller = new AbortController();
  const reason = new Error("job cancelled");

  const render = renderCaptionedVideo({
    inputPath: input,
    outputPath: output,
    cues,
    style,
    media,
    encoder: X264_ENCODER,
    signal: controller.signal,
    onProgress: (fraction) => {
      if (fraction > 0) controller.abort(reason);
    },
  });
  await assert.rejects(render, (error) => error === reason);
  assert.equal(await exists(output), false);
  assert.deepEqual(await processesMentioning(output), []);
});

/** Ids of live processes whose command line contains `text`. */
async function processesMentioning(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(text)) pids.push(Number(entry));
  }
  return pids;
}
