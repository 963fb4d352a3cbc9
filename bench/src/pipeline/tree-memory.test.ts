import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { parseProcStatEntry, sampleTreeMemory, treeResidentBytes, type ProcessEntry } from "./tree-memory.ts";

test("reads pid, parent, name and resident pages", () => {
  const stat = "77 (node (main)) S 12 77 77 0 -1 4194304 900 0 0 0 10 2 0 0 20 0 11 0 500 1000000 2500 18446744073709551615";
  assert.deepEqual(parseProcStatEntry(stat), { pid: 77, ppid: 12, command: "node (main)", rssBytes: 2500 * 4096 });
});

test("sums a tree, leaving out excluded commands but still walking below them", () => {
  const entries: ProcessEntry[] = [
    { pid: 1, ppid: 0, command: "init", rssBytes: 1 },
    { pid: 10, ppid: 1, command: "node", rssBytes: 100 },
    { pid: 11, ppid: 10, command: "ffmpeg", rssBytes: 50 },
    { pid: 12, ppid: 10, command: "postgres", rssBytes: 1000 },
    { pid: 13, ppid: 12, command: "postgres", rssBytes: 1000 },
    { pid: 14, ppid: 11, command: "ffmpeg", rssBytes: 5 },
    { pid: 20, ppid: 1, command: "other", rssBytes: 7 },
  ];
  assert.deepEqual(treeResidentBytes(entries, 10, (c) => c === "postgres"), { bytes: 155, byCommand: { node: 100, ffmpeg: 55 } });
  assert.deepEqual(treeResidentBytes(entries, 99, () => false), { bytes: 0, byCommand: {} });
});

test("the sampler sees a child's memory while it runs", async () => {
  // A child holding ~64 MiB of touched memory for a moment.
  const ownRss = process.memoryUsage().rss;
  const child = spawn(process.execPath, ["-e", "const b = Buffer.alloc(64 * 2 ** 20, 1); setTimeout(() => b.length, 800);"]);
  const sampler = sampleTreeMemory(process.pid, { intervalMs: 50 });
  await once(child, "exit");
  const peak = await sampler.stop();
  assert.ok(peak.peakBytes > ownRss + 64 * 2 ** 20, `peak ${peak.peakBytes}, this process ${ownRss}`);
});
