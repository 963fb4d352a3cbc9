import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { X264_ENCODER, probeMedia, SOFTWARE_DECODER } from "@caption/gpu-worker/media";
import { median } from "../api/scenario-summary.ts";
import { sweepOrder } from "./bench-plan.ts";
import { sweepPresets } from "./preset-sweep.ts";

test("a sweep renders each preset between floor runs, and burns the chosen ones in with libass right after its first render", async () => {
  const video = await makeSpeechVideo({ text: "one two three four five six", width: 360, height: 640, durationSeconds: 3 });
  const workDir = await mkdtemp(path.join(tmpdir(), "sweep-test-"));
  try {
    const words = ["one", "two", "three", "four", "five", "six"].map((text, i) => ({ text, start: 0.3 + i * 0.4, end: 0.6 + i * 0.4, confidence: 0.9 }));
    const steps: string[] = [];
    const sweep = await sweepPresets({
      clip: { orientation: "portrait", width: 360, height: 640, duration_seconds: video.durationSeconds },
      inputPath: video.path,
      media: await probeMedia(video.path),
      words,
      encoder: X264_ENCODER,
      decoder: SOFTWARE_DECODER,
      workDir,
      presets: ["classic", "karaoke"],
      libassPresets: ["karaoke", "highlight"],
      repeat: 2,
      onStep: (label) => steps.push(label),
    });
    assert.deepEqual(steps, [
      "floor (plain re-encode)", "render classic (1/2)", "render karaoke (1/2)", "libass burn-in (karaoke)", "render karaoke (2/2)", "render classic (2/2)", "floor again",
    ]);
    assert.equal(sweep.floor_runs.length, 2);
    assert.deepEqual(sweep.runs.map((r) => r.preset), ["classic", "karaoke"]);
    for (const run of sweep.runs) {
      assert.ok(run.cpu_ms > 0 && run.wall_ms > 0);
      // Node draws; ffmpeg decodes, overlays and encodes, and takes most of it.
      assert.ok(run.node_cpu_ms !== undefined && run.node_cpu_ms > 0 && run.node_cpu_ms < run.cpu_ms / 2, `node ${run.node_cpu_ms} of ${run.cpu_ms} ms`);
      // Both renders were between the same two floor runs: the median of their ratios to those runs' mean.
      assert.equal(run.cpu_ratios?.length, 2);
      assert.equal(run.cpu_ratio_to_floor, median(run.cpu_ratios!));
      assert.ok(Math.abs(run.cpu_ratio_to_floor - run.cpu_ms / sweep.floor.cpu_ms) < 0.01);
      assert.ok(run.frames_drawn > 0 && run.frames_per_second !== null && run.frames_per_second > 0);
    }
    // Every word changes karaoke's picture; classic changes only per cue.
    assert.ok(sweep.runs[1]!.frames_drawn > sweep.runs[0]!.frames_drawn);
    assert.equal(sweep.runs[0]!.libass, null);
    assert.ok(sweep.runs[1]!.libass && sweep.runs[1]!.libass.cpu_ms > 0 && sweep.runs[1]!.libass.wall_ms > 0);
    assert.equal(sweep.runs[1]!.libass.left_out, null);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
});

test("a sweep's order: rounds alternating direction, a floor run first, after every four renders and last", () => {
  const show = (steps: ReturnType<typeof sweepOrder>) => steps.map((s) => (s.kind === "floor" ? "F" : `${s.preset}${s.round}`)).join(" ");
  assert.equal(show(sweepOrder(["classic", "karaoke"], 1)), "F classic0 karaoke0 F");
  assert.equal(show(sweepOrder(["classic", "karaoke", "smash"], 3)), "F classic0 karaoke0 smash0 smash1 F karaoke1 classic1 classic2 karaoke2 F smash2 F");
  assert.throws(() => sweepOrder(["classic"], 0), /repeat/);
});
