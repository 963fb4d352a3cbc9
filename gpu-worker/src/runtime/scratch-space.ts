import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { currentProcess, processLiveness, type ProcessIdentity } from "./process-identity.ts";

// Scratch space (downloads, renders) under DATA_DIR/work, shared by every worker process that uses the
// same DATA_DIR: each worker owns one folder, named by its worker id, with an owner record beside its
// attempts' folders. A worker that dies (SIGKILL, OOM, a node lost) cannot clean up after itself;
// the others reclaim its folder once they know it is dead, and never a folder a live worker owns.

const OWNER_FILE = ".owner.json";
const HEARTBEAT_MS = 30_000;
const RECLAIM_EVERY_MS = 5 * 60_000;
/**
 * An owner this process cannot check directly (another container or host sharing DATA_DIR) is dead
 * when its owner record has not been touched for this long: ten missed heartbeats.
 */
export const STALE_AFTER_MS = 10 * HEARTBEAT_MS;

export interface ScratchOwner extends ProcessIdentity {
  workerId: string;
}

export interface ScratchSpace {
  /** This worker's folder: each attempt makes its own inside it. */
  dir: string;
  /** Removes the folders whose owners are dead; returns their names. */
  reclaim(): Promise<string[]>;
  /** Stops the timers and removes this worker's folder. */
  close(): Promise<void>;
}

export interface ScratchOptions {
  now?: () => number;
  /** Who this process is (tests pose as another container). */
  self?: ProcessIdentity;
}

/** Claims `root/<workerId>`, reclaims dead workers' folders now and every five minutes, and keeps its own record fresh. */
export async function claimScratchSpace(root: string, workerId: string, logger: Logger, options: ScratchOptions = {}): Promise<ScratchSpace> {
  const now = options.now ?? Date.now;
  const self = options.self ?? currentProcess();
  const dir = path.join(root, workerId);
  const ownerFile = path.join(dir, OWNER_FILE);
  const writeOwner = async () => {
    await mkdir(dir, { recursive: true });
    const owner: ScratchOwner = { workerId, ...self };
    await writeFile(`${ownerFile}.tmp`, JSON.stringify(owner));
    await rename(`${ownerFile}.tmp`, ownerFile);
  };
  await writeOwner();

  const reclaim = async (): Promise<string[]> => {
    const reclaimed: string[] = [];
    for (const entry of await readdir(root, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === workerId) continue;
      const folder = path.join(root, entry.name);
      // A folder that vanished meanwhile (another worker reclaimed it) is skipped.
      const verdict = await judgeFolder(folder, self, now()).catch(() => undefined);
      if (!verdict || verdict.alive) continue;
      await rm(folder, { recursive: true, force: true });
      reclaimed.push(entry.name);
      logger.info({ folder, reason: verdict.reason, owner_pid: verdict.owner?.pid, owner_host: verdict.owner?.hostname }, "reclaimed the scratch space of a dead worker");
    }
    return reclaimed;
  };
  await reclaim();

  const heartbeat = setInterval(() => {
    const touched = new Date(now());
    // A missing record (removed by hand, or a long stall judged dead) is written again.
    utimes(ownerFile, touched, touched)
      .catch(writeOwner)
      .catch((error: unknown) => logger.warn({ err: error }, "scratch space heartbeat failed"));
  }, HEARTBEAT_MS);
  const reclaimer = setInterval(() => {
    reclaim().catch((error: unknown) => logger.warn({ err: error }, "scratch space reclaim failed"));
  }, RECLAIM_EVERY_MS);
  heartbeat.unref();
  reclaimer.unref();

  return {
    dir,
    reclaim,
    async close() {
      clearInterval(heartbeat);
      clearInterval(reclaimer);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

interface Verdict {
  alive: boolean;
  reason: "owner process alive" | "owner process gone" | "heartbeat fresh" | "heartbeat stale";
  owner?: ScratchOwner;
}

async function judgeFolder(folder: string, self: ProcessIdentity, now: number): Promise<Verdict> {
  const owner = await readOwner(folder);
  const liveness = owner ? processLiveness(owner, self) : "unknown";
  if (liveness === "alive") return { alive: true, reason: "owner process alive", owner };
  if (liveness === "dead") return { alive: false, reason: "owner process gone", owner };
  // Another container or host, or a folder from before owner records: judged by when it was last touched.
  const touched = owner ? (await stat(path.join(folder, OWNER_FILE))).mtimeMs : await newestMtime(folder);
  return now - touched < STALE_AFTER_MS ? { alive: true, reason: "heartbeat fresh", owner } : { alive: false, reason: "heartbeat stale", owner };
}

async function readOwner(folder: string): Promise<ScratchOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(path.join(folder, OWNER_FILE), "utf8")) as Partial<ScratchOwner>;
    return typeof owner.workerId === "string" && typeof owner.pid === "number" && typeof owner.hostname === "string" ? (owner as ScratchOwner) : undefined;
  } catch {
    return undefined;
  }
}

/** The latest modification of a folder or anything directly in it. */
async function newestMtime(folder: string): Promise<number> {
  let newest = (await stat(folder)).mtimeMs;
  for (const entry of await readdir(folder)) {
    const info = await stat(path.join(folder, entry)).catch(() => undefined);
    if (info) newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}
