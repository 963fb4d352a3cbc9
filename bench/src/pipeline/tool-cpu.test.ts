import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { toolCpuLog } from "./tool-cpu.ts";

const run = promisify(execFile);

test("the wrappers run the tools, keep their output and exit status, and log each run's CPU by what it is for", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "tool-cpu-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tools = await toolCpuLog(dir);
  const encode = ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-frames:v", "60", "-c:v", "libx264", "-f", "null", "-"];
  await run(tools.env.FFMPEG_PATH!, encode);
  await run(tools.env.FFMPEG_PATH!, ["-ss", "0.5", ...encode]);
  const { stdout } = await run(tools.env.FFPROBE_PATH!, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=5", "-read_intervals", "%+#1", "-show_entries", "stream=width", "-of", "csv=p=0"]);
  assert.equal(stdout.trim(), "64");
  await assert.rejects(run(tools.env.FFMPEG_PATH!, ["-v", "error", "-i", path.join(dir, "missing.mp4"), "-f", "null", "-"]), (error: { code?: number }) => error.code === 1);
  const all = await tools.read();
  assert.equal(all.runs, 4);
  assert.deepEqual(Object.keys(all.byPart).sort(), ["inspection and checks (ffprobe)", "other", "pictures (seeking)"]);
  assert.ok(all.byPart.other! > 0 && all.byPart["pictures (seeking)"]! > 0, JSON.stringify(all.byPart));
  assert.deepEqual(Object.keys((await tools.read(2)).byPart).sort(), ["inspection and checks (ffprobe)", "other"]);
});
