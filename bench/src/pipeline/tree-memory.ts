import { readdir, readFile } from "node:fs/promises";
import { splitProcStat } from "./proc-stat.ts";

const PAGE_BYTES = 4096;

export interface ProcessEntry {
  pid: number;
  ppid: number;
  command: string;
  rssBytes: number;
}

/** pid, parent pid, command name and resident set of one /proc/<pid>/stat line. */
export function parseProcStatEntry(stat: string): ProcessEntry {
  const { pid, command, fields } = splitProcStat(stat);
  // proc(5): ppid is field 4, rss (pages) field 24.
  return { pid, ppid: Number(fields[1]), command, rssBytes: Number(fields[21]) * PAGE_BYTES };
}

/** The processes under `rootPid` (itself included), minus those `exclude` names, with their RSS summed. */
export function treeResidentBytes(
  entries: readonly ProcessEntry[],
  rootPid: number,
  exclude: (command: string) => boolean,
): { bytes: number; byCommand: Record<string, number> } {
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of entries) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const byCommand: Record<string, number> = {};
  let bytes = 0;
  const root = entries.find((entry) => entry.pid === rootPid);
  const pending = root ? [root] : [];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    pending.push(...(children.get(entry.pid) ?? []));
    if (exclude(entry.command)) continue;
    bytes += entry.rssBytes;
    byCommand[entry.command] = (byCommand[entry.command] ?? 0) + entry.rssBytes;
  }
  return { bytes, byCommand };
}

async function readProcesses(): Promise<ProcessEntry[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const stats = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/stat`, "utf8").catch(() => null)));
  return stats.filter((stat): stat is string => stat !== null).map(parseProcStatEntry);
}

export interface MemoryPeak {
  peakBytes: number;
  /** Which processes made up the peak. */
  atPeak: Record<string, number>;
}

/**
 * Samples the resident memory of a process tree (summed, so a job's ffmpeg and recognizer count with
 * the worker) until stopped, and keeps the peak. Sampling misses spikes shorter than the interval.
 */
export function sampleTreeMemory(
  rootPid: number,
  options: { intervalMs?: number; exclude?: (command: string) => boolean } = {},
): { stop(): Promise<MemoryPeak> } {
  const exclude = options.exclude ?? (() => false);
  const peak: MemoryPeak = { peakBytes: 0, atPeak: {} };
  let running = true;
  const loop = (async () => {
    while (running) {
      const tree = treeResidentBytes(await readProcesses(), rootPid, exclude);
      if (tree.bytes > peak.peakBytes) Object.assign(peak, { peakBytes: tree.bytes, atPeak: tree.byCommand });
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}
