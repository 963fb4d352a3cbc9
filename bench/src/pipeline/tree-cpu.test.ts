import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { treeCpuMs } from "./tree-cpu.ts";

// A parent that stays idle while one child spins until it has used 300 ms of CPU and exits, and another
// keeps spinning (still alive when measured): both must count under the parent, none of it as the parent's own.
const spin = (ms: number) => `const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }; while (used() < ${ms});`;
const parentScript = `
const { spawn } = require("node:child_process");
const done = spawn(process.execPath, ["-e", ${JSON.stringify(spin(300))}]);
spawn(process.execPath, ["-e", ${JSON.stringify(`${spin(200)} setInterval(() => {}, 1000);`)}]);
done.on("exit", () => setTimeout(() => console.log("ready"), 200));
setInterval(() => {}, 1000);`;

test("the CPU of everything under a process, apart from its own, counting children that exited", async (t) => {
  const parent = spawn(process.execPath, ["-e", parentScript], { stdio: ["ignore", "pipe", "inherit"], detached: true });
  t.after(() => process.kill(-(parent.pid ?? 0), "SIGKILL"));
  await once(parent.stdout, "data");
  const tree = await treeCpuMs(parent.pid ?? 0);
  assert.ok(tree.descendantsMs >= 450, `descendants ${tree.descendantsMs} ms`);
  assert.ok(tree.rootMs < 300, `the idle parent ${tree.rootMs} ms`);
  // The live child under its command name; the one that exited among what the parent reaped.
  const [reaped, live] = [Object.entries(tree.byCommand).filter(([name]) => name.startsWith("reaped by ")), Object.entries(tree.byCommand).filter(([name]) => !name.startsWith("reaped by "))];
  assert.ok(reaped.length === 1 && reaped[0]![1] >= 250, JSON.stringify(tree.byCommand));
  assert.ok(live.length === 1 && live[0]![1] >= 150, JSON.stringify(tree.byCommand));
  await assert.rejects(treeCpuMs(2 ** 22 + 12345), /is gone/);
});
