import assert from "node:assert/strict";
import { test } from "node:test";
import { finishedStageLines, initialProgress, progressBars, withJobEvent, withUpload, type ProgressState } from "./progress-view.ts";

const MiB = 1024 * 1024;

test("the upload's bar counts bytes and its clock; it ends when the last byte is in", () => {
  let state = withUpload(initialProgress(), 0, 20 * MiB, 1000);
  state = withUpload(state, 5 * MiB, 20 * MiB, 1500);
  assert.deepEqual(progressBars(state, 1600), ["upload     [########----------------------]  25%  5.0 MiB / 20.0 MiB  0.6 s"]);
  state = withUpload(state, 20 * MiB, 20 * MiB, 3000);
  // The clock stops at the end.
  assert.deepEqual(progressBars(state, 9000), ["upload     [##############################] 100%  20.0 MiB / 20.0 MiB  2.0 s"]);
});

test("each job stage fills its band of the job's progress; the stages before it are done", () => {
  let state: ProgressState = withJobEvent(initialProgress(), "queued", 0, 0);
  assert.deepEqual(progressBars(state, 0), ["queued     waiting for a worker"]);
  state = withJobEvent(state, "ingesting", 5, 100);
  assert.deepEqual(progressBars(state, 300), ["ingest     [###############---------------]  50%  0.2 s"]);
  state = withJobEvent(state, "transcribing", 12, 500);
  state = withJobEvent(state, "transcribing", 53.5, 1500);
  assert.deepEqual(progressBars(state, 1500), [
    "ingest     [##############################] 100%  0.4 s",
    "transcribe [###############---------------]  50%  1.0 s",
  ]);
  state = withJobEvent(state, "rendering", 56, 2000);
  state = withJobEvent(state, "rendering", 78, 2500);
  assert.deepEqual(progressBars(state, 2600), [
    "ingest     [##############################] 100%  0.4 s",
    "transcribe [##############################] 100%  1.5 s",
    "render     [#######################-------]  75%  0.6 s",
  ]);
  state = withJobEvent(state, "completed", 100, 3000);
  assert.deepEqual(progressBars(state, 5000).at(-1), "render     [##############################] 100%  1.0 s");
});

test("bars never go back within a stage; a retry (back to queued) starts the job's stages again; a failure leaves them as they were", () => {
  let state = withJobEvent(initialProgress(), "transcribing", 60, 0);
  state = withJobEvent(state, "transcribing", 30, 10);
  assert.equal(state.stages.transcribe?.fraction, (60 - 12) / 83);
  assert.equal(state.stages.ingest?.fraction, 1, "a stage skipped over (first event seen late) counts as done");
  state = withUpload(state, 10, 10, 0);
  state = withJobEvent(state, "queued", 0, 20);
  assert.deepEqual(Object.keys(state.stages), ["upload"]);
  state = withJobEvent(state, "ingesting", 4, 30);
  const failed = withJobEvent(state, "failed", 4, 40);
  assert.deepEqual(failed.stages, state.stages);
  assert.equal(failed.status, "failed");
});

test("not on a terminal: one plain line per stage as it finishes, each once", () => {
  const a = withUpload(initialProgress(), 0, 3 * MiB, 0);
  const b = withUpload(a, 3 * MiB, 3 * MiB, 1200);
  assert.deepEqual(finishedStageLines(a, b), ["upload: 3.0 MiB done in 1.2 s"]);
  const c = withJobEvent(withJobEvent(b, "ingesting", 0, 1300), "transcribing", 12, 1800);
  assert.deepEqual(finishedStageLines(b, c), ["ingest: done in 0.5 s"]);
  const d = withJobEvent(c, "completed", 100, 4800);
  assert.deepEqual(finishedStageLines(c, d), ["transcribe: done in 3.0 s", "render: done in 0.0 s"]);
  assert.deepEqual(finishedStageLines(d, withJobEvent(d, "completed", 100, 5000)), []);
});
