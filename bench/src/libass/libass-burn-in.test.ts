import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { runFfmpeg, runFfprobe, type FfmpegProgress, X264_ENCODER } from "@caption/gpu-worker/media";
import { assSubtitles, linkBundledFonts } from "@caption/gpu-worker/subtitles";
import { burnInWithLibass } from "./libass-burn-in.ts";
import { brightPixels, grayFrame } from "@caption/gpu-worker/testing";

const WIDTH = 320;
const HEIGHT = 240;

let dir = "";
let sourcePath = "";
let assPath = "";
let fontsDir = "";
before(async () => {
  // Every character ffmpeg's filter syntax treats specially, in the folder holding the script and the fonts.
  dir = path.join(await mkdtemp(path.join(tmpdir(), "libass-burn-in-")), "it's: [a], b;c\\d");
  await mkdir(dir, { recursive: true });
  sourcePath = path.join(dir, "source.mp4");
  await runFfmpeg({
    args: [
      "-hide_banner", "-loglevel", "error",
      "-f", "lavfi", "-i", `color=c=black:s=${WIDTH}x${HEIGHT}:r=25:d=2`,
      "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono",
      "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", sourcePath,
    ],
  });
  const style = resolveStyle({
    preset: "classic",
    style: { position: "center", scale: 1, font_size: 200, text_color: "#FFFFFF", outline: { thickness: 0 } },
    video: { width: WIDTH, height: HEIGHT },
  });
  assPath = path.join(dir, "captions.ass");
  await writeFile(assPath, assSubtitles([{ start: 1, end: 2, lines: [{ words: [{ text: "HI", start: 1, end: 2 }] }] }], style));
  fontsDir = path.join(dir, "fonts: 'bundled'");
  await linkBundledFonts(fontsDir, ["Inter"]);
});
after(async () => {
  await rm(path.dirname(dir), { recursive: true, force: true });
});

const CENTRE = { x: WIDTH / 2 - 80, y: HEIGHT / 2 - 50, width: 160, height: 100 };

test("the cue's white text is burned into the frame centre only while the cue is up; AAC audio is copied", async () => {
  const outputPath = path.join(dir, "burned.mp4");
  const progress: FfmpegProgress[] = [];
  await burnInWithLibass({ inputPath: sourcePath, outputPath, assPath, fontsDir, encoderArgs: X264_ENCODER.args, onProgress: (p) => progress.push(p) });

  const frameAt = (atSeconds: number) => grayFrame({ input: ["-i", outputPath], atSeconds, width: WIDTH, height: HEIGHT });
  const before = await frameAt(0.5);
  const during = await frameAt(1.5);
  assert.equal(brightPixels(before, { x: 0, y: 0, width: WIDTH, height: HEIGHT }, 64), 0, "nothing is drawn before the cue");
  assert.ok(brightPixels(during, CENTRE, 200) > 300, "white text in the centre during the cue");
  assert.equal(brightPixels(during, { x: 0, y: 0, width: WIDTH, height: CENTRE.y }, 64), 0, "nothing above the centred caption");

  assert.equal(progress.at(-1)?.done, true);
  const streams = await runFfprobe({ args: ["-v", "error", "-show_entries", "stream=codec_type,codec_name", "-of", "csv=p=0", outputPath] });
  assert.deepEqual(streams.trim().split("\n").sort(), ["aac,audio", "h264,video"]);
});

test("an aborted burn-in rejects with the signal's reason", async () => {
  const reason = new Error("stop");
  await assert.rejects(
    burnInWithLibass({ inputPath: sourcePath, outputPath: path.join(dir, "aborted.mp4"), assPath, fontsDir, encoderArgs: X264_ENCODER.args, signal: AbortSignal.abort(reason) }),
    (error) => error === reason,
  );
});
