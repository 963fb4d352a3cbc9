// Every preset previews as it renders: the still a preview makes of an instant (the render's own patches
// replayed, laid on the background as ffmpeg's overlay lays them) is, pixel for pixel, the frame of a render
// of the same words at that instant, over a checkerboard video and over a moving one. The renders are
// encoded losslessly so their frames can be compared exactly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { timelineSeconds } from "@caption/shared/preview/preview-timeline";
import { runFfmpeg } from "../../media/ffmpeg.ts";
import { probeMedia } from "../../media/ffprobe.ts";
import type { MediaInfo } from "../../media/media-info.ts";
import { captionsInFrame, captionTimeline } from "../../render/caption-timeline.ts";
import { renderCaptionedVideo } from "../../render/render-video.ts";
import { buildStyledCues } from "../../render/styled-cues.ts";
import { checkerboard, overlayCaptions, Yuv420Frame } from "../../render/yuv-frame.ts";
import { LOSSLESS_ENCODER } from "../frame-hashes.ts";

const [WIDTH, HEIGHT, FPS] = [360, 640, 30];
// Two runs of words with a pause between, so the captions clear once before the last cue.
const WORDS = [
  ..."every single word you speak".split(" ").map((text, i) => ({ text, start: 0.1 + i * 0.3, end: 0.35 + i * 0.3 })),
  ..."after a pause".split(" ").map((text, i) => ({ text, start: 2.4 + i * 0.3, end: 2.65 + i * 0.3 })),
];
const SECONDS = timelineSeconds(WORDS, undefined);
// A word popping in, the last word of the first run, the pause, the first frame of the second run, its end.
const FRAMES = [Math.round(0.45 * FPS), Math.round(1.5 * FPS), Math.round(2.2 * FPS), Math.round(2.4 * FPS), Math.round(3.2 * FPS)];

const dir = await mkdtemp(path.join(tmpdir(), "preview-frames-"));
test.after(() => rm(dir, { recursive: true, force: true }));

/** A lossless video of `SECONDS` at 30 fps, with sound: the checkerboard, or ffmpeg's moving test picture. */
async function sourceVideo(name: string, picture: "checkerboard" | "testsrc2"): Promise<{ path: string; media: MediaInfo }> {
  const file = path.join(dir, `${name}.mp4`);
  const still = path.join(dir, `${name}.yuv`);
  if (picture === "checkerboard") await writeFile(still, checkerboard(WIDTH, HEIGHT).bytes);
  const input =
    picture === "checkerboard"
      ? ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", `${WIDTH}x${HEIGHT}`, "-framerate", String(FPS), "-stream_loop", "-1", "-i", still]
      : ["-f", "lavfi", "-i", `testsrc2=size=${WIDTH}x${HEIGHT}:rate=${FPS}`];
  await runFfmpeg({
    args: ["-hide_banner", "-loglevel", "error", "-y", ...input, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", String(SECONDS), ...LOSSLESS_ENCODER.args, "-c:a", "aac", file],
  });
  return { path: file, media: await probeMedia(file) };
}

/** Frames `indices` of a video, decoded to yuv420p. */
async function decodedFrames(video: string, indices: readonly number[]): Promise<Yuv420Frame[]> {
  const out = path.join(dir, `${path.basename(video)}.yuv`);
  const select = indices.map((n) => `eq(n\\,${n})`).join("+");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-i", video, "-vf", `select=${select}`, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", out] });
  const bytes = await readFile(out);
  const size = bytes.length / indices.length;
  return indices.map((_, i) => new Yuv420Frame(WIDTH, HEIGHT, bytes.subarray(i * size, (i + 1) * size)));
}

/** Where two frames first differ, or null when they are the same bytes. */
function firstDifference(actual: Yuv420Frame, expected: Yuv420Frame): string | null {
  for (const plane of ["y", "u", "v"] as const) {
    const i = actual[plane].findIndex((value, k) => value !== expected[plane][k]);
    if (i >= 0) return `${plane} plane, sample ${i}: ${actual[plane][i]} instead of ${expected[plane][i]}`;
  }
  return null;
}

async function assertPreviewsMatch(preset: PresetId, source: { path: string; media: MediaInfo }, background: (n: number) => Yuv420Frame): Promise<void> {
  const style = resolveStyle({ preset, video: { width: WIDTH, height: HEIGHT } });
  const rendered = path.join(dir, `${preset.replace("&", "-and-")}-${path.basename(source.path)}`);
  const cues = buildStyledCues(WORDS, style, source.media.durationSeconds);
  await renderCaptionedVideo({ inputPath: source.path, outputPath: rendered, cues, style, media: source.media, encoder: LOSSLESS_ENCODER });
  const frames = await decodedFrames(rendered, FRAMES);
  const timeline = captionTimeline(WORDS, style, source.media);
  FRAMES.forEach((n, i) => {
    const preview = background(n);
    overlayCaptions(preview, captionsInFrame(timeline, n), timeline.band);
    const difference = firstDifference(preview, frames[i]!);
    assert.equal(difference, null, `${preset}, frame ${n}: ${difference}`);
  });
}

const checker = await sourceVideo("checkerboard", "checkerboard");
const moving = await sourceVideo("moving", "testsrc2");
const movingFrames = await decodedFrames(moving.path, FRAMES);

for (const preset of PRESET_IDS) {
  test(`${preset}: a still preview over the checkerboard is the rendered frame`, async () => {
    await assertPreviewsMatch(preset, checker, () => checkerboard(WIDTH, HEIGHT));
  });
}

for (const preset of ["karaoke", "box", "push"] as const satisfies readonly PresetId[]) {
  test(`${preset}: a still preview over a job's own frame is the rendered frame`, async () => {
    await assertPreviewsMatch(preset, moving, (n) => movingFrames[FRAMES.indexOf(n)]!.clone());
  });
}
