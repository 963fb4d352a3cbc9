import assert from "node:assert/strict";
import { test } from "node:test";
import { JobFailure } from "@caption/shared/errors/codes";
import { FfmpegError } from "./ffmpeg.ts";
import { sourceFailure } from "./source-failure.ts";

test("a run that read the file and failed is the upload's fault, with ffmpeg's last line minus paths", () => {
  const failed = new FfmpegError("ffprobe exited with code 1", 1, "noise\n/data/work/job_1/source: Invalid data found when processing input\n");
  const mapped = sourceFailure(failed, "UNSUPPORTED_FORMAT", "The file is not a readable video");
  assert.ok(mapped instanceof JobFailure);
  assert.equal(mapped.code, "UNSUPPORTED_FORMAT");
  assert.equal(mapped.message, "The file is not a readable video: the file: Invalid data found when processing input");
  assert.equal(mapped.cause, failed);
});

test("a crash or a missed deadline on the file is the upload's fault too", () => {
  const crashed = sourceFailure(new FfmpegError("ffmpeg was killed by SIGSEGV", null, ""), "UNSUPPORTED_FORMAT", "Decoding failed");
  assert.ok(crashed instanceof JobFailure && /SIGSEGV/.test(crashed.message));
  const late = sourceFailure(new FfmpegError("ffprobe ran past its deadline", null, "", { timedOut: true }), "UNSUPPORTED_FORMAT", "Inspecting");
  assert.ok(late instanceof JobFailure && late.message === "Inspecting: took longer than its deadline");
});

test("a tool that cannot start, an abort and other errors pass through for the queue to retry", () => {
  const missing = new FfmpegError("ffprobe could not run: ENOENT", null, "", { notStarted: true });
  assert.equal(sourceFailure(missing, "UNSUPPORTED_FORMAT", "x"), missing);
  const abort = new DOMException("aborted", "AbortError");
  assert.equal(sourceFailure(abort, "UNSUPPORTED_FORMAT", "x"), abort);
});
