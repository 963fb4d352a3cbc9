import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { runFfmpeg } from "./ffmpeg.ts";
import { probeVideoDecoder, SOFTWARE_DECODER } from "./video-decoder.ts";

const dir = await mkdtemp(join(tmpdir(), "video-decoder-test-"));
test.after(() => rm(dir, { recursive: true, force: true }));

/** A stand-in ffmpeg that records its pid and then hangs, as a wedged driver call would. */
async function hangingFfmpeg(name: string): Promise<{ binary: string; pid: () => Promise<number> }> {
  const binary = join(dir, name);
  const pidFile = `${binary}.pid`;
  await writeFile(binary, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 600\n`, { mode: 0o755 });
  const pid = async () => {
    for (;;) {
      const text = await readFile(pidFile, "utf8").catch(() => "");
      if (/^\d+\n$/.test(text)) return Number(text);
      await delay(10);
    }
  };
  return { binary, pid };
}

const exited = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
};

async function untilExited(pid: number): Promise<void> {
  while (!exited(pid)) await delay(10);
}

test("picks a decoder that decodes H.264 here, and says why when it is not NVDEC", async () => {
  const { decoder, fallbackReason } = await probeVideoDecoder();
  if (!existsSync("/dev/nvidiactl")) {
    assert.deepEqual(decoder, SOFTWARE_DECODER, "no NVIDIA device here");
    assert.match(fallbackReason ?? "", /cuda/i);
  }

  const clip = join(dir, "clip.mp4");
  await runFfmpeg({ args: ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:d=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-y", clip] });
  await runFfmpeg({ args: ["-v", "error", ...decoder.inputArgs, "-i", clip, "-f", "null", "-"] });
});

test("an ffmpeg that cannot run falls back to software decoding instead of throwing", async () => {
  for (const binary of ["false", join(dir, "no-such-ffmpeg")]) {
    const { decoder, fallbackReason } = await probeVideoDecoder({ binary });
    assert.deepEqual(decoder, SOFTWARE_DECODER);
    assert.ok(fallbackReason !== null && fallbackReason.length > 0);
  }
});

test("a hanging probe is cut off by its timeout", async () => {
  const fake = await hangingFfmpeg("hangs-until-timeout");
  const { decoder, fallbackReason } = await probeVideoDecoder({ binary: fake.binary, timeoutMs: 1000 });
  assert.deepEqual(decoder, SOFTWARE_DECODER);
  assert.equal(fallbackReason, "probe timed out after 1000 ms");
  if (existsSync(`${fake.binary}.pid`)) await untilExited(await fake.pid());
});

test("an abort rejects with its reason and kills the probe", async () => {
  const fake = await hangingFfmpeg("hangs-until-abort");
  const controller = new AbortController();
  const probing = probeVideoDecoder({ binary: fake.binary, signal: controller.signal });
  const pid = await fake.pid();
  const stop = new Error("worker shutting down");
  controller.abort(stop);
  await assert.rejects(probing, (error) => error === stop);
  await untilExited(pid);
  await assert.rejects(probeVideoDecoder({ signal: AbortSignal.abort() }), { name: "AbortError" });
});
