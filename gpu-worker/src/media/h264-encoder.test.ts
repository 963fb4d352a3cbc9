import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg, runFfprobe } from "./ffmpeg.ts";
import { probeH264Encoder, X264_ENCODER } from "./h264-encoder.ts";

test("detects a working H.264 encoder, and what it chose encodes a playable stream here", async () => {
  const { encoder } = await probeH264Encoder();
  assert.ok(encoder.encoder === "h264_nvenc" || encoder.encoder === "libx264");
  if (!existsSync("/dev/nvidiactl")) assert.equal(encoder.encoder, "libx264", "no NVIDIA device here");

  // Whatever was chosen must encode a playable yuv420p H.264 stream here.
  const dir = await mkdtemp(join(tmpdir(), "h264-test-"));
  try {
    const output = join(dir, "out.mp4");
    await runFfmpeg({ args: ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:d=0.5", ...encoder.args, "-y", output] });
    const probe = await runFfprobe({ args: ["-v", "error", "-show_entries", "stream=codec_name,pix_fmt", "-of", "csv=p=0", output] });
    assert.equal(probe.trim(), "h264,yuv420p");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("an ffmpeg that cannot run NVENC falls back to libx264", async () => {
  // `false` stands in for an ffmpeg whose NVENC probe fails.
  const { encoder, fallbackReason } = await probeH264Encoder({ binary: "false" });
  assert.deepEqual(encoder, X264_ENCODER);
  assert.match(fallbackReason ?? "", /exited with code 1/);
});

test("an aborted signal rejects instead of choosing", async () => {
  await assert.rejects(probeH264Encoder({ signal: AbortSignal.abort() }), { name: "AbortError" });
});
