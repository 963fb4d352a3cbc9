import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { JobFailure } from "@caption/shared/errors/codes";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { FfmpegError, runFfmpeg } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import { sourceInputArgs } from "../media/source-input.ts";
import { probeVideoDecoder, NVDEC_DECODER, SOFTWARE_DECODER, type VideoDecoder } from "../media/video-decoder.ts";
import { renderCaptionedVideo } from "./render-video.ts";

const dir = await mkdtemp(join(tmpdir(), "render-video-decoder-"));
test.after(() => rm(dir, { recursive: true, force: true }));

const source = join(dir, "source.mp4");
await runFfmpeg({
  args: [
    "-hide_banner", "-loglevel", "error", "-y",
    "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
    "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", source,
  ],
});
const media = await probeMedia(source);
const style = resolveStyle({ preset: "classic", video: { width: media.width, height: media.height } });
const cues = [{ start: 0.2, end: 0.8, lines: [{ words: [{ text: "decoded", start: 0.2, end: 0.8 }] }] }];

// The real ffmpeg, behind a script that records the arguments it was given.
const argsFile = join(dir, "ffmpeg-args");
const recordingFfmpeg = join(dir, "ffmpeg");
await writeFile(recordingFfmpeg, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\nexec ffmpeg "$@"\n`, { mode: 0o755 });

/** Renders with `decoder` through the recording ffmpeg: the arguments it got, and the error if it failed. */
async function render(decoder: VideoDecoder, name: string): Promise<{ args: string[]; error: unknown }> {
  let error: unknown = null;
  try {
    await renderCaptionedVideo({
      inputPath: source,
      outputPath: join(dir, name),
      cues,
      style,
      media,
      encoder: X264_ENCODER,
      decoder,
      ffmpegBinary: recordingFfmpeg,
    });
  } catch (caught) {
    error = caught;
  }
  return { args: (await readFile(argsFile, "utf8")).split("\n").slice(0, -1), error };
}

test("the decoder's input arguments go right before the source's hardened input arguments, and only there", async () => {
  const sourceArgs = sourceInputArgs({ path: source, container: "mov" }, { limitSeconds: media.durationSeconds });
  for (const decoder of [SOFTWARE_DECODER, NVDEC_DECODER]) {
    const { args, error } = await render(decoder, `${decoder.decoder}.mp4`);
    const first = args.indexOf(`file:${source}`) + 1 - sourceArgs.length;
    assert.deepEqual(args.slice(first, first + sourceArgs.length), sourceArgs);
    assert.deepEqual(args.slice(first - decoder.inputArgs.length, first), decoder.inputArgs);
    assert.equal(args.filter((arg) => arg === "-hwaccel").length, decoder.inputArgs.includes("-hwaccel") ? 1 : 0);
    if (decoder === NVDEC_DECODER && !existsSync("/dev/nvidiactl")) {
      // Without a CUDA device ffmpeg refuses the input, which proves the arguments reached it.
      assert.ok(error instanceof JobFailure && error.code === "RENDER_FAILED", String(error));
      assert.ok(error.cause instanceof FfmpegError && /cuda/i.test(error.cause.stderrTail), String(error.cause));
    } else {
      assert.equal(error, null);
    }
  }
});

test("the decoder detected here renders the captioned video", async () => {
  const { decoder } = await probeVideoDecoder();
  assert.equal((await render(decoder, "detected.mp4")).error, null);
  const out = await probeMedia(join(dir, "detected.mp4"));
  assert.deepEqual([out.width, out.height, out.hasAudio], [320, 240, true]);
  assert.ok(Math.abs(out.durationSeconds - media.durationSeconds) <= 0.1);
});
