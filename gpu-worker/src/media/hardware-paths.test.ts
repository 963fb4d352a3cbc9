import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pino } from "pino";
import { runFfmpeg, runFfprobe } from "./ffmpeg.ts";
import { detectHardwarePaths } from "./hardware-paths.ts";
import { X264_ENCODER } from "./h264-encoder.ts";
import { SOFTWARE_DECODER } from "./video-decoder.ts";

interface Line {
  msg: string;
  decoder?: string;
  encoder?: string;
  asr_provider?: string;
  nvdec_unavailable?: string;
  nvenc_unavailable?: string;
}

function capturingLogger(): { logger: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  return { logger: pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) }), lines };
}

test("logs one line naming the decoder, encoder and ASR provider, and the paths work together", async () => {
  const { logger, lines } = capturingLogger();
  const { encoder, decoder } = await detectHardwarePaths({ logger, asrProvider: "cpu" });
  assert.equal(lines.length, 1);
  const [line] = lines;
  assert.equal(line?.decoder, decoder.decoder);
  assert.equal(line?.encoder, encoder.encoder);
  assert.equal(line?.asr_provider, "cpu");
  assert.match(line?.msg ?? "", /, ASR on cpu$/);
  if (!existsSync("/dev/nvidiactl")) {
    assert.equal(line?.msg, "video decoding on CPU, encoding on CPU (libx264), ASR on cpu");
    assert.ok(line?.nvdec_unavailable && line.nvenc_unavailable, "the reasons are logged");
  }

  const dir = await mkdtemp(join(tmpdir(), "hardware-paths-test-"));
  try {
    const source = join(dir, "source.mp4");
    const output = join(dir, "out.mp4");
    await runFfmpeg({ args: ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-y", source] });
    await runFfmpeg({ args: ["-v", "error", ...decoder.inputArgs, "-i", source, "-vf", "drawbox=c=red:t=fill:h=20", ...encoder.args, "-y", output] });
    const probe = await runFfprobe({ args: ["-v", "error", "-count_frames", "-show_entries", "stream=codec_name,nb_read_frames", "-of", "csv=p=0", output] });
    assert.equal(probe.trim(), "h264,15");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("an ffmpeg without CUDA leaves both on the CPU without throwing, and logs why", async () => {
  const { logger, lines } = capturingLogger();
  assert.deepEqual(await detectHardwarePaths({ logger, binary: "false" }), { encoder: X264_ENCODER, decoder: SOFTWARE_DECODER });
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.msg, "video decoding on CPU, encoding on CPU (libx264)");
  assert.match(lines[0]?.nvdec_unavailable ?? "", /exited with code 1/);
  assert.match(lines[0]?.nvenc_unavailable ?? "", /exited with code 1/);
});

test("an abort rejects and logs nothing", async () => {
  const { logger, lines } = capturingLogger();
  await assert.rejects(detectHardwarePaths({ logger, signal: AbortSignal.abort() }), { name: "AbortError" });
  assert.equal(lines.length, 0);
});
