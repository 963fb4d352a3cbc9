import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { runFfprobe } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import { grayFrame } from "../testing/gray-frame.ts";
import { makeHlgRampVideo } from "../testing/hdr-media.ts";
import { planCaptions, renderCaptionedVideo } from "./render-video.ts";

const WIDTH = 640;
const HEIGHT = 360;
const dir = await mkdtemp(join(tmpdir(), "render-hdr-"));
test.after(() => rm(dir, { recursive: true, force: true }));

test("an HLG source comes out as SDR BT.709, tone-mapped, with white captions at SDR white", async () => {
  const input = join(dir, "hlg.mp4");
  await makeHlgRampVideo(input, { width: WIDTH, height: HEIGHT, seconds: 2 });
  const media = await probeMedia(input);
  assert.equal(media.colorTransfer, "arib-std-b67");
  const style = resolveStyle({ preset: "classic", video: { width: WIDTH, height: HEIGHT } });
  const cues = [{ start: 0, end: 2, lines: [{ words: [{ text: "WHITE", start: 0, end: 2 }] }] }];
  const output = join(dir, "captioned.mp4");
  await renderCaptionedVideo({ inputPath: input, outputPath: output, cues, style, media, encoder: X264_ENCODER });

  const stream = JSON.parse(await runFfprobe({ args: ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=pix_fmt,color_transfer,color_primaries,color_space", "-of", "json", output] })) as { streams: Record<string, string>[] };
  assert.deepEqual(stream.streams[0], { pix_fmt: "yuv420p", color_space: "bt709", color_transfer: "bt709", color_primaries: "bt709" });

  const frame = await grayFrame({ input: ["-i", output], atSeconds: 1, width: WIDTH, height: HEIGHT });
  const ramp = Array.from({ length: WIDTH }, (_, x) => frame.pixels[20 * WIDTH + x] ?? 0);
  const at = (signal: number) => ramp[Math.round(signal * (WIDTH - 1))] ?? 0;
  // Black stays black, the scene's reference white (75 % HLG signal, BT.2408) is near SDR white (passed
  // through untouched it would read about 191), highlights above it roll off instead of clipping.
  assert.ok(at(0) < 10, `black ${at(0)}`);
  assert.ok(at(0.75) >= 225 && at(0.75) <= 248, `reference white ${at(0.75)}`);
  assert.ok(at(1) > at(0.75) && at(1) <= 255, `peak ${at(1)} above reference white ${at(0.75)}`);
  for (let x = 8; x < WIDTH; x += 8) assert.ok(ramp[x]! >= ramp[x - 8]! - 2, `the ramp falls at x=${x}: ${ramp[x - 8]} → ${ramp[x]}`);

  // The caption's white fill is drawn in SDR white over the tone-mapped picture.
  const { layouts } = planCaptions(cues, style, media.durationSeconds);
  const ink = layouts[0]!.ink;
  const fill = Array.from({ length: Math.ceil(ink.bottom - ink.top) }, (_, dy) => Math.floor(ink.top) + dy).flatMap((y) =>
    Array.from({ length: Math.ceil(ink.right - ink.left) }, (_, dx) => frame.pixels[y * WIDTH + Math.floor(ink.left) + dx] ?? 0),
  );
  assert.ok(Math.max(...fill) >= 245, `brightest caption pixel ${Math.max(...fill)}`);
});
