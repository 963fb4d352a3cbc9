import assert from "node:assert/strict";
import { test } from "node:test";
import { planBench, stepLabel } from "./bench-plan.ts";

test("a full run plans whole jobs, speech recognition, and every preset on both 60 s clips with libass", () => {
  const plan = planBench({ full: true, api: true });
  assert.equal(plan.jobs.length, 4);
  assert.deepEqual(plan.asr, { orientation: "portrait", seconds: 600 });
  assert.equal(plan.sweepWords, null);
  assert.deepEqual(plan.sweeps.map((clip) => `${clip.orientation} ${clip.seconds}`), ["portrait 60", "landscape 60"]);
  assert.deepEqual(plan.libassPresets, plan.presets);
  assert.ok(plan.steps.some((step) => step.label === stepLabel.service));
  assert.deepEqual(plan.concurrent, [
    { clip: { orientation: "portrait", seconds: 60 }, jobs: 4, workers: 2 },
    { clip: { orientation: "portrait", seconds: 600 }, jobs: 2, workers: 2 },
  ]);
});

test("a quick run measures four 60 s jobs two at a time", () => {
  assert.deepEqual(planBench({ full: false, api: false }).concurrent, [{ clip: { orientation: "portrait", seconds: 60 }, jobs: 4, workers: 2 }]);
});

test("--only sweep plans the sweeps alone, captioned with a transcript of their clip", () => {
  const plan = planBench({ full: true, api: true, only: "sweep", presets: "smash,ogre", orientation: "landscape" });
  assert.deepEqual(plan.jobs, []);
  assert.deepEqual(plan.concurrent, []);
  assert.equal(plan.asr, null);
  assert.equal(plan.api, false);
  assert.deepEqual(plan.sweeps, [{ orientation: "landscape", seconds: 60 }]);
  assert.deepEqual(plan.sweepWords, { orientation: "landscape", seconds: 60 });
  assert.deepEqual(plan.libassPresets, ["smash", "ogre"]);
  assert.deepEqual(plan.videos, [{ orientation: "landscape", seconds: 60 }]);
  assert.deepEqual(plan.steps.map((step) => step.label), [stepLabel.video({ orientation: "landscape", seconds: 60 }), stepLabel.sweepWords, stepLabel.sweep({ orientation: "landscape", seconds: 60 })]);
});

test("--only takes nothing but sweep", () => {
  assert.throws(() => planBench({ full: false, api: false, only: "jobs" }), /--only takes sweep/);
});

test("--repeat renders each preset of the sweep that many times, and takes only a whole number from 1 to 20", () => {
  assert.equal(planBench({ full: false, api: false }).repeat, 1);
  const once = planBench({ full: false, api: false, only: "sweep", presets: "smash,ogre" });
  const thrice = planBench({ full: false, api: false, only: "sweep", presets: "smash,ogre", repeat: "3" });
  assert.equal(thrice.repeat, 3);
  const sweepWeight = (plan: typeof once) => plan.steps.find((step) => step.label === stepLabel.sweep({ orientation: "portrait", seconds: 30 }))!.weight;
  // 2 renders + 2 floors + 1 burn-in (highlight is not swept) against 6 renders + 3 floors.
  assert.equal(sweepWeight(thrice) / sweepWeight(once), 9 / 4);
  for (const bad of ["0", "-1", "1.5", "21", "x", ""]) {
    assert.throws(() => planBench({ full: false, api: false, repeat: bad }), /--repeat takes a whole number from 1 to 20/, bad);
  }
});
