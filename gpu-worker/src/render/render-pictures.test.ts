import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { test } from "node:test";
import type { Word } from "@caption/shared/api/transcript";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { grabFrames, picturesFromFrames } from "../media/frame-grabs.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import { LOSSLESS_ENCODER } from "../testing/frame-hashes.ts";
import type { Cue } from "./cue-builder.ts";
import { posterInstant, stripInstants } from "./picture-instants.ts";
import { planCaptions, renderCaptionedVideo, type RenderVideoOptions } from "./render-video.ts";
import { buildStyledCues } from "./styled-cues.ts";

// The poster and the strip from the frames the render takes as it composites them: the frames are the burned
// video's own, the JPEGs the ones seeking in the burned video gives (exactly, with a lossless encoder; within
// JPEG noise with the service's), whether the cues are all known or come while the render runs.

const [WIDTH, HEIGHT, FPS, SECONDS] = [360, 640, 30, 12];
const dir = await mkdtemp(join(tmpdir(), "render-pictures-"));
test.after(() => (process.env.KEEP_TEST_FILES ? undefined : rm(dir, { recursive: true, force: true })));

const source = join(dir, "source.mp4");
await runFfmpeg({
  args: [
    "-hide_banner", "-loglevel", "error", "-y",
    "-f", "lavfi", "-i", `testsrc2=size=${WIDTH}x${HEIGHT}:rate=${FPS}`, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
    "-t", String(SECONDS), "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mp4", source,
  ],
});
const media = await probeMedia(source);
const style = resolveStyle({ preset: "highlight", video: { width: WIDTH, height: HEIGHT } });
const spoken = (text: string, from: number): Word[] => text.split(" ").map((word, i) => ({ text: word, start: from + i * 0.45, end: from + i * 0.45 + 0.4 }));
// A short sentence, a fuller one later in the first 10 s (the poster), and a silence over the middle of the
// strip's sixth eighth (its fullest moment then lies before the middle).
const words = [...spoken("Hi there.", 0.4), ...spoken("This sentence holds more words than that.", 2.5), ...spoken("And the last part.", 9.6)];
const cues = buildStyledCues(words, style, media.durationSeconds);
const { layouts } = planCaptions(cues, style, media.durationSeconds);
const timeline = { layouts, style, durationSeconds: media.durationSeconds, frameRate: media.frameRate };
const frameBytes = WIDTH * HEIGHT * 1.5;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Frame `index` of a video, decoded to raw yuv420p. */
async function decodedFrame(path: string, index: number): Promise<Buffer> {
  const out = join(dir, `decoded-${index}-${Math.random().toString(36).slice(2)}.yuv`);
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-i", path, "-vf", `select=eq(n\\,${index})`, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", out] });
  return readFile(out);
}

async function render(name: string, captions: Pick<RenderVideoOptions, "cues" | "cueStream">, encoder = LOSSLESS_ENCODER) {
  const outputPath = join(dir, `${name}.mp4`);
  const framesPath = join(dir, `${name}.yuv`);
  const options = { ...captions, inputPath: source, outputPath, style, media, encoder, pictures: { framesPath } } as RenderVideoOptions;
  const rendered = await renderCaptionedVideo(options);
  return { outputPath, framesPath, pictures: rendered.pictures!, frames: await readFile(framesPath) };
}

/** The poster and strip made from the taken frames, and the same made by seeking in the burned video. */
async function bothWays(name: string, r: Awaited<ReturnType<typeof render>>) {
  const [poster, strip, seekPoster, seekStrip] = ["poster", "strip", "seek-poster", "seek-strip"].map((file) => join(dir, `${name}-${file}.jpg`));
  const { chosen } = r.pictures;
  await picturesFromFrames(
    { path: r.framesPath, width: WIDTH, height: HEIGHT },
    { poster: { frame: chosen.poster.take, path: poster! }, strip: { frames: chosen.strip.map((s) => s.take), path: strip!, height: 320 } },
  );
  const strip320 = { times: chosen.strip.map((s) => s.at), path: seekStrip!, height: 320 };
  await grabFrames({ path: r.outputPath, frameRate: FPS }, { poster: { at: chosen.poster.at, path: seekPoster! }, strip: strip320 });
  return Promise.all([poster, strip, seekPoster, seekStrip].map((file) => readFile(file!)));
}

test("all cues known: the pictures' instants are the rules', their frames the burned video's own, the JPEGs the ones seeking gives", async () => {
  const r = await render("known", { cues });
  const { poster, strip } = r.pictures.chosen;
  assert.equal(poster.at, posterInstant(timeline));
  assert.deepEqual(strip.map((s) => s.at), stripInstants(timeline));
  assert.ok(poster.at >= 2.5, `${poster.at}: the fuller sentence`);
  const takes = r.frames.length / frameBytes;
  assert.ok(Number.isInteger(takes) && takes >= 9, `${takes} frames taken`);
  for (const picture of [poster, ...strip]) {
    const taken = r.frames.subarray(picture.take * frameBytes, (picture.take + 1) * frameBytes);
    assert.equal(sha(taken), sha(await decodedFrame(r.outputPath, Math.floor(picture.at * FPS + 1e-6))), `frame at ${picture.at} s`);
  }
  const [posterJpeg, stripJpeg, seekPoster, seekStrip] = await bothWays("known", r);
  assert.ok(posterJpeg!.equals(seekPoster!), "the poster as seeking makes it");
  assert.ok(stripJpeg!.equals(seekStrip!), "the strip as seeking makes it");
});

test("cues streamed while the render runs: the same frames taken", async () => {
  const known = await render("known-again", { cues });
  // Each cue asked for once the caption frames before it are in ffmpeg's pipe.
  const cueStream = (async function* (): AsyncGenerator<readonly Cue[]> {
    for (const cue of cues) {
      for (let i = 0; i < 20; i++) await yieldToEventLoop();
      yield [cue];
    }
  })();
  const streamed = await render("streamed", { cueStream });
  assert.deepEqual(streamed.pictures.chosen, known.pictures.chosen);
  const taken = (r: typeof known, take: number) => sha(r.frames.subarray(take * frameBytes, (take + 1) * frameBytes));
  const picked = (r: typeof known) => [r.pictures.chosen.poster, ...r.pictures.chosen.strip].map((p) => taken(r, p.take));
  assert.deepEqual(picked(streamed), picked(known));
});

test("with the service's encoder the pictures differ from seeking's only by the encoder's and JPEG's loss", async () => {
  const r = await render("lossy", { cues }, X264_ENCODER);
  const [posterJpeg, stripJpeg, seekPoster, seekStrip] = await bothWays("lossy", r);
  const rgb = async (jpeg: Buffer, name: string) => {
    const [file, out] = [join(dir, `${name}.jpg`), join(dir, `${name}.rgb`)];
    await writeFile(file, jpeg);
    await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", out] });
    return readFile(out);
  };
  for (const [name, ours, theirs] of [["poster", posterJpeg!, seekPoster!], ["strip", stripJpeg!, seekStrip!]] as const) {
    const [a, b] = await Promise.all([rgb(ours, `${name}-ours`), rgb(theirs, `${name}-seek`)]);
    assert.equal(a.length, b.length);
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
    assert.ok(sum / a.length < 2, `${name}: mean difference ${(sum / a.length).toFixed(2)} of 255`);
  }
});
