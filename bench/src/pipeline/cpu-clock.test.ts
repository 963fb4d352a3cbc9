import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { parseProcStatCpu, timed } from "./cpu-clock.ts";

test("parses utime/stime/cutime/cstime even when the command name holds spaces and parentheses", () => {
  const stat = "4242 (ffmpeg (x) y) S 1 4242 4242 0 -1 4194560 1 0 0 0 150 25 300 45 20 0 1 0 100 1000 200 18446744073709551615";
  assert.deepEqual(parseProcStatCpu(stat), { selfMs: 1750, reapedChildrenMs: 3450 });
});

test("rejects a line it cannot read", () => {
  assert.throws(() => parseProcStatCpu("12 (x) S 1 2"), /unreadable/);
});

test("counts a child's CPU time once the child has exited", async () => {
  // A busy loop in a child: all of its time must show up, though this process itself was idle.
  // Spins until it has used 300 ms of CPU, however busy the machine is.
  const busy = "const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }; while (used() < 300);";
  const run = await timed(() => promisify(execFile)(process.execPath, ["-e", busy]));
  assert.ok(run.cpuMs >= 250, `child CPU ${run.cpuMs} ms`);
  // This process only waited: its own share is a small part of it.
  assert.ok(run.ownCpuMs < run.cpuMs - 200, `own CPU ${run.ownCpuMs} ms of ${run.cpuMs} ms`);
});
