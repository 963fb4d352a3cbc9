import assert from "node:assert/strict";
import { test } from "node:test";
import { FfmpegError } from "./ffmpeg.ts";
import { gpuUnavailableReason } from "./gpu-probe.ts";

const never = () => new Promise<void>(() => undefined);

test("a probe that succeeds leaves no reason", async () => {
  assert.equal(await gpuUnavailableReason({}, async () => undefined), null);
});

test("a failing probe gives ffmpeg's error lines as the reason", async () => {
  const stderr = "[AVHWDeviceContext @ 0x55e61bcce840] Cannot load libcuda.so.1\nDevice setup failed\n";
  const failure = new FfmpegError("ffmpeg exited with code 1: Device setup failed", 1, stderr);
  const reason = await gpuUnavailableReason({}, () => Promise.reject(failure));
  assert.equal(reason, "[AVHWDeviceContext] Cannot load libcuda.so.1; Device setup failed");
});

test("a probe that never settles is cut off by the timeout, which the probe's signal carries", async () => {
  let probeSignal: AbortSignal | undefined;
  const reason = await gpuUnavailableReason({ timeoutMs: 50 }, (signal) => {
    probeSignal = signal;
    return never();
  });
  assert.equal(reason, "probe timed out after 50 ms");
  assert.equal(probeSignal?.aborted, true);
});

test("the caller's abort rejects with its reason even while the probe hangs", async () => {
  const controller = new AbortController();
  const stop = new Error("shutting down");
  const probing = gpuUnavailableReason({ signal: controller.signal }, never);
  controller.abort(stop);
  await assert.rejects(probing, (error) => error === stop);
  await assert.rejects(gpuUnavailableReason({ signal: AbortSignal.abort() }, async () => undefined), { name: "AbortError" });
});
