import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPocketsphinxEngine } from "../asr/pocketsphinx-engine.ts";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import { renderPresetPreview, type PreviewStage } from "./preset-preview.ts";

const dir = await mkdtemp(path.join(tmpdir(), "preset-preview-test-"));
test.after(() => rm(dir, { recursive: true, force: true }));

test("a preview video: spoken words transcribed by the real engine and burned in with the preset", async () => {
  const engine = createPocketsphinxEngine();
  const outputPath = path.join(dir, "karaoke.mp4");
  const stages = new Map<PreviewStage, number>();
  try {
    const result = await renderPresetPreview({
      preset: "karaoke",
      video: { width: 320, height: 180 },
      outputPath,
      engine,
      encoder: X264_ENCODER,
      signal: AbortSignal.timeout(120_000),
      onProgress: (stage, fraction) => stages.set(stage, Math.max(stages.get(stage) ?? 0, fraction)),
    });
    assert.ok(result.words.length >= 12, `${result.words.length} words`);
    assert.ok(result.framesDrawn > result.words.length, `${result.framesDrawn} frames drawn`);
    const media = await probeMedia(outputPath);
    assert.deepEqual([media.width, media.height, media.videoCodec, media.hasAudio], [320, 180, "h264", true]);
    assert.ok(media.durationSeconds > 6 && media.durationSeconds < 10, `${media.durationSeconds} s`);
    assert.deepEqual([...stages.entries()].sort(), [["rendering", 1], ["speaking", 1], ["transcribing", 1]]);
    // The backdrop is a dark gradient; karaoke's white text and outline are the only near-white pixels.
    const framePath = path.join(dir, "frame.rgb");
    await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-ss", "2", "-i", outputPath, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", framePath] });
    const rgb = await readFile(framePath);
    let white = 0;
    for (let i = 0; i < rgb.length; i += 3) if (rgb[i]! > 220 && rgb[i + 1]! > 220 && rgb[i + 2]! > 220) white++;
    assert.ok(white > 100, `${white} near-white pixels`);
  } finally {
    await engine.close();
  }
});

test("an aborted preview stops and leaves no video", async () => {
  const engine = createPocketsphinxEngine();
  const outputPath = path.join(dir, "aborted.mp4");
  const controller = new AbortController();
  try {
    await assert.rejects(
      renderPresetPreview({
        preset: "classic",
        video: { width: 320, height: 180 },
        outputPath,
        engine,
        encoder: X264_ENCODER,
        signal: controller.signal,
        onProgress: (stage) => {
          if (stage === "transcribing") controller.abort(new Error("stop"));
        },
      }),
      /stop/,
    );
    await assert.rejects(stat(outputPath), { code: "ENOENT" });
  } finally {
    await engine.close();
  }
});
