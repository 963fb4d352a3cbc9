import { readdir, readFile } from "node:fs/promises";
import { parseProcStatCpu } from "./cpu-clock.ts";
import { splitProcStat } from "./proc-stat.ts";

export interface TreeCpu {
  /** The root process alone (the API's, or the service's, node process). */
  rootMs: number;
  /** Every other process under it (the embedded PostgreSQL's server and backends, a worker's ffmpeg and recognizer). */
  descendantsMs: number;
  /** descendantsMs by the command name of each process under the root, with the children it reaped. */
  byCommand: Record<string, number>;
}

interface ProcCpu {
  pid: number;
  ppid: number;
  command: string;
  selfMs: number;
  /** The children it has reaped: summed with the live processes of a tree, every process counts once. */
  reapedChildrenMs: number;
}

function parseEntry(stat: string): ProcCpu {
  const { pid, command, fields } = splitProcStat(stat);
  return { pid, ppid: Number(fields[1]), command, ...parseProcStatCpu(stat) };
}

/**
 * CPU time used so far by a process and, apart, by everything under it, including processes that have exited
 * (a backend is counted through the postmaster that reaped it).
 */
export async function treeCpuMs(rootPid: number): Promise<TreeCpu> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const stats = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/stat`, "utf8").catch(() => null)));
  const entries = stats.filter((stat): stat is string => stat !== null).map(parseEntry);
  const children = new Map<number, ProcCpu[]>();
  for (const entry of entries) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const root = entries.find((entry) => entry.pid === rootPid);
  if (!root) throw new Error(`process ${rootPid} is gone`);
  let descendantsMs = root.reapedChildrenMs;
  const byCommand: Record<string, number> = { [`reaped by ${root.command}`]: root.reapedChildrenMs };
  const pending = [...(children.get(rootPid) ?? [])];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    pending.push(...(children.get(entry.pid) ?? []));
    descendantsMs += entry.selfMs + entry.reapedChildrenMs;
    byCommand[entry.command] = (byCommand[entry.command] ?? 0) + entry.selfMs + entry.reapedChildrenMs;
  }
  return { rootMs: root.selfMs, descendantsMs, byCommand };
}
