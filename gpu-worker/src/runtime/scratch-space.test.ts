import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { currentProcess, processLiveness, startTicksOf, type ProcessIdentity } from "./process-identity.ts";
import { claimScratchSpace, STALE_AFTER_MS, type ScratchOwner } from "./scratch-space.ts";

const logger = pino({ level: "silent" });
let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "scratch-space-"));
});
after(() => rm(root, { recursive: true, force: true }));

/** A folder as another worker leaves it: its owner record, an attempt's folder with a download. */
async function ownedFolder(base: string, owner: ScratchOwner, touchedAt?: number): Promise<string> {
  const dir = path.join(base, owner.workerId);
  await mkdir(path.join(dir, "job_1-abc"), { recursive: true });
  await writeFile(path.join(dir, "job_1-abc", "source"), "video bytes");
  await writeFile(path.join(dir, ".owner.json"), JSON.stringify(owner));
  if (touchedAt !== undefined) await utimes(path.join(dir, ".owner.json"), touchedAt / 1000, touchedAt / 1000);
  return dir;
}

/** A process that has exited (and been reaped), as a SIGKILLed worker is. */
async function deadProcess(): Promise<ProcessIdentity> {
  const child = spawn("sleep", ["30"]);
  const identity = { ...currentProcess(), pid: child.pid ?? 0, startTicks: startTicksOf(child.pid ?? 0) };
  child.kill("SIGKILL");
  await once(child, "exit");
  return identity;
}

describe("process liveness", () => {
  test("a running process is alive, an exited one dead, one of another pid namespace unknown", async () => {
    const self = currentProcess();
    assert.equal(processLiveness({ ...self }, self), "alive");
    assert.equal(processLiveness(await deadProcess(), self), "dead");
    // The same pid with another start time is a new process that reused it.
    assert.equal(processLiveness({ ...self, startTicks: (self.startTicks ?? 0) + 1 }, self), "dead");
    assert.equal(processLiveness({ ...self, pidNamespace: "pid:[1]" }, self), "unknown");
    assert.equal(processLiveness({ ...self, hostname: "elsewhere", bootId: "another-boot" }, self), "unknown");
    // The same machine booted since: whatever ran then is gone.
    assert.equal(processLiveness({ ...self, bootId: "an-earlier-boot" }, self), "dead");
  });
});

describe("scratch space", () => {
  test("reclaims the folders of dead workers and keeps those of live ones", async () => {
    const base = await mkdtemp(path.join(root, "work-"));
    const now = Date.now();
    const self = currentProcess();
    const killed = await ownedFolder(base, { workerId: "killed", ...(await deadProcess()) });
    const running = await ownedFolder(base, { workerId: "running", ...self });
    // Another container sharing DATA_DIR: its pid means nothing here, its heartbeat decides.
    const elsewhere = { ...self, hostname: "pod-b", pidNamespace: "pid:[4026532999]", pid: 1 };
    const beating = await ownedFolder(base, { workerId: "beating", ...elsewhere }, now - 60_000);
    const silent = await ownedFolder(base, { workerId: "silent", ...elsewhere }, now - STALE_AFTER_MS - 1000);
    // A folder from before owner records, untouched for long, and one still being written.
    const legacyOld = path.join(base, "job_2-old");
    const legacyBusy = path.join(base, "job_3-busy");
    for (const dir of [legacyOld, legacyBusy]) {
      await mkdir(dir);
      await writeFile(path.join(dir, "source"), "video bytes");
    }
    const old = (now - STALE_AFTER_MS - 1000) / 1000;
    await utimes(path.join(legacyOld, "source"), old, old);
    await utimes(legacyOld, old, old);

    const scratch = await claimScratchSpace(base, "me", logger, { now: () => now });
    try {
      assert.equal(scratch.dir, path.join(base, "me"));
      assert.ok(existsSync(path.join(scratch.dir, ".owner.json")));
      for (const dir of [killed, silent, legacyOld]) assert.equal(existsSync(dir), false, `${path.basename(dir)} reclaimed`);
      for (const dir of [running, beating, legacyBusy]) assert.equal(existsSync(dir), true, `${path.basename(dir)} kept`);

      // Later: once their heartbeat lapses, the other container's folder and the idle old one go too;
      // live processes' folders stay, however old.
      const later = await claimScratchSpace(base, "me-later", logger, { now: () => now + STALE_AFTER_MS + 60_000 });
      assert.deepEqual((await readdir(base)).sort(), ["me", "me-later", "running"]);
      await later.close();
    } finally {
      await scratch.close();
    }
    assert.equal(existsSync(path.join(base, "me")), false, "a worker removes its own folder when it stops");
  });

  test("two workers of the same process never reclaim each other", async () => {
    const base = await mkdtemp(path.join(root, "work-"));
    const a = await claimScratchSpace(base, "a", logger);
    const b = await claimScratchSpace(base, "b", logger);
    try {
      assert.deepEqual(await a.reclaim(), []);
      assert.deepEqual(await b.reclaim(), []);
      assert.deepEqual((await readdir(base)).sort(), ["a", "b"]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
