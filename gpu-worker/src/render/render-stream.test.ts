import assert from "node:assert/strict";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import type { PresetId } from "@caption/shared/api/preset";
import { JobFailure } from "@caption/shared/errors/codes";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import type { Cue } from "./cue-builder.ts";
import { renderCaptionedVideo } from "./render-video.ts";
import { buildStyledCues } from "./styled-cues.ts";
import { frameHashes, LOSSLESS_ENCODER } from "../testing/frame-hashes.ts";

const dir = await mkdtemp(join(tmpdir(), "render-stream-"));
test.after(() => rm(dir, { recursive: true, force: true }));

const source = join(dir, "source.mp4");
await runFfmpeg({
  args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=540x960:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", source],
});
const media = await probeMedia(source);
const TEXT = "the quick brown fox jumps over the lazy dog. it was a bright cold day in April and the clocks were striking thirteen".split(" ");
const words = TEXT.map((text, i) => ({ text, start: 0.2 + i * 0.16, end: 0.2 + i * 0.16 + 0.12 }));

/** Cues in batches of `size`, each handed over after a pause, as recognition would. */
async function* trickle(cues: readonly Cue[], size: number): AsyncGenerator<Cue[]> {
  for (let i = 0; i < cues.length; i += size) {
    await sleep(30);
    yield cues.slice(i, i + size);
  }
}

for (const preset of ["classic", "smash", "karaoke"] as PresetId[]) {
  test(`${preset}: a render fed its cues while it runs makes the very frames of a render given them all at once`, async () => {
    const style = resolveStyle({ preset, video: { width: media.width, height: media.height } });
    const cues = buildStyledCues(words, style, media.durationSeconds);
    assert.ok(cues.length >= 3);
    const whole = join(dir, `${preset}-whole.mp4`);
    const streamed = join(dir, `${preset}-streamed.mp4`);
    const common = { inputPath: source, style, media, encoder: LOSSLESS_ENCODER };
    const sequential = await renderCaptionedVideo({ ...common, outputPath: whole, cues });
    const overlapped = await renderCaptionedVideo({ ...common, outputPath: streamed, cueStream: trickle(cues, 2) });
    assert.equal(overlapped.framesDrawn, sequential.framesDrawn);
    const [a, b] = await Promise.all([frameHashes(whole), frameHashes(streamed)]);
    assert.equal(a.length, Math.round(media.durationSeconds * media.frameRate));
    assert.deepEqual(b, a);
  });
}

test("a cue stream that fails stops the render with its error and leaves no output", async () => {
  const style = resolveStyle({ preset: "classic", video: { width: media.width, height: media.height } });
  const cues = buildStyledCues(words, style, media.durationSeconds);
  const output = join(dir, "failed.mp4");
  const broken = async function* () {
    yield cues.slice(0, 1);
    await sleep(30);
    throw new JobFailure("TRANSCRIPTION_FAILED", "the recognizer failed");
  };
  await assert.rejects(renderCaptionedVideo({ inputPath: source, outputPath: output, style, media, encoder: X264_ENCODER, cueStream: broken() }), /the recognizer failed/);
  await assert.rejects(stat(output), { code: "ENOENT" });
});

test("ffmpeg failing while the render waits for cues ends the render at once: RENDER_FAILED", async () => {
  const style = resolveStyle({ preset: "classic", video: { width: media.width, height: media.height } });
  const garbage = join(dir, "garbage.mp4");
  await writeFile(garbage, Buffer.alloc(4096, 7));
  // Recognition that never gets anywhere: only ffmpeg's failure can end this render.
  const never = async function* (): AsyncGenerator<Cue[]> {
    await new Promise(() => undefined);
  };
  await assert.rejects(renderCaptionedVideo({ inputPath: garbage, outputPath: join(dir, "never.mp4"), style, media, encoder: X264_ENCODER, cueStream: never() }), (error: unknown) => error instanceof JobFailure && error.code === "RENDER_FAILED");
});
