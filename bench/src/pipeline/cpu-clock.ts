import { readFileSync } from "node:fs";
import { splitProcStat } from "./proc-stat.ts";

// USER_HZ: the unit of /proc/<pid>/stat times; 100 on every mainstream Linux build.
const TICKS_PER_SECOND = 100;

/** utime, stime, cutime, cstime of a /proc/<pid>/stat line, in milliseconds. */
export function parseProcStatCpu(stat: string): { selfMs: number; reapedChildrenMs: number } {
  const { fields } = splitProcStat(stat);
  const tick = (index: number) => {
    const value = Number(fields[index]);
    if (!Number.isFinite(value)) throw new Error(`unreadable /proc stat line: ${stat.slice(0, 120)}`);
    return (value * 1000) / TICKS_PER_SECOND;
  };
  // Fields 14–17 of proc(5), counted from field 3 (state) at index 0.
  return { selfMs: tick(11) + tick(12), reapedChildrenMs: tick(13) + tick(14) };
}

/**
 * CPU time of this process (every thread) plus every child it has waited for: a child's time is added to
 * its parent's cutime/cstime when it is reaped, so ffmpeg runs are counted exactly, to the tick.
 */
export function cpuMsSoFar(): number {
  return ownCpuMs() + parseProcStatCpu(readFileSync("/proc/self/stat", "utf8")).reapedChildrenMs;
}

export interface Timed<T> {
  value: T;
  wallMs: number;
  /** This process and the children it reaped meanwhile. */
  cpuMs: number;
  /** This process alone (node's share; the rest is its children's, e.g. ffmpeg). */
  ownCpuMs: number;
}

const ownCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Wall and CPU time of `run`; only meaningful while nothing else in this process (or its other children) works. */
export async function timed<T>(run: () => Promise<T>): Promise<Timed<T>> {
  const cpuBefore = cpuMsSoFar();
  const ownBefore = ownCpuMs();
  const started = performance.now();
  const value = await run();
  return { value, wallMs: Math.round(performance.now() - started), cpuMs: Math.round(cpuMsSoFar() - cpuBefore), ownCpuMs: Math.round(ownCpuMs() - ownBefore) };
}
