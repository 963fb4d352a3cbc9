import { readFile } from "node:fs/promises";
import { treeCpuMs, type TreeCpu } from "../pipeline/tree-cpu.ts";

// The benchmark alternates quiet and attack windows; what the API process did is summed per phase over
// its windows: the second account's latencies (every response, pooled), CPU, and event loop delay.

export interface Phase {
  /** Every response time of the second account's GETs in this phase's windows, ms. */
  latencies: number[];
  /** Its answered requests (the expected answer), and the others. */
  requests: number;
  unexpected: number;
  /** The second account's upload PATCHes in these windows (with the `uploads` attack): every one's time, ms, and their answers. */
  uploadLatencies: number[];
  uploadRequests: number;
  uploadUnexpected: number;
  windows: [number, number][];
  apiCpuMs: number;
  dbCpuMs: number;
  /** This process's CPU: the second account's load and (on its own thread) the attacker's client. */
  clientCpuMs: number;
}

export const newPhase = (): Phase => ({
  latencies: [],
  requests: 0,
  unexpected: 0,
  uploadLatencies: [],
  uploadRequests: 0,
  uploadUnexpected: 0,
  windows: [],
  apiCpuMs: 0,
  dbCpuMs: 0,
  clientCpuMs: 0,
});

/** Runs `work` as one window of `phase`: its wall span and the API's (and its PostgreSQL's) CPU are added to the phase. */
export async function inWindow<T>(phase: Phase, pid: number, work: () => Promise<T>): Promise<T> {
  const [from, cpuFrom, clientFrom] = [Date.now(), await treeCpuMs(pid), process.cpuUsage()];
  const result = await work();
  const client = process.cpuUsage(clientFrom);
  phase.clientCpuMs += (client.user + client.system) / 1000;
  const [to, cpuTo]: [number, TreeCpu] = [Date.now(), await treeCpuMs(pid)];
  phase.windows.push([from, to]);
  phase.apiCpuMs += cpuTo.rootMs - cpuFrom.rootMs;
  phase.dbCpuMs += cpuTo.descendantsMs - cpuFrom.descendantsMs;
  return result;
}

export const wallMs = (phase: Phase) => phase.windows.reduce((sum, [from, to]) => sum + (to - from), 0);

/** The `p`-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** CPU the API and its PostgreSQL spent per second of the phase's wall time. */
export function cpuShare(phase: Phase): string {
  const share = (ms: number) => (ms / Math.max(1, wallMs(phase))).toFixed(2);
  return `API ${share(phase.apiCpuMs)} + PostgreSQL ${share(phase.dbCpuMs)} CPU-s/s (the benchmark's clients ${share(phase.clientCpuMs)})`;
}

interface LoopSecond {
  at: number;
  p99: number;
  max: number;
}

/** The API's event loop delay in a phase's windows (from BENCH_LOOP_DELAY_FILE): the median of its per-second p99s, and the worst second's max. */
export async function loopDelay(file: string, phase: Phase): Promise<string> {
  const lines = (await readFile(file, "utf8").catch(() => "")).split("\n").filter((line) => line !== "");
  const seconds = lines.map((line) => JSON.parse(line) as LoopSecond).filter((s) => phase.windows.some(([from, to]) => s.at > from + 1000 && s.at <= to));
  return `p99 ${percentile(seconds.map((s) => s.p99), 50)} ms (median of ${seconds.length} s), worst ${Math.max(0, ...seconds.map((s) => s.max))} ms`;
}
