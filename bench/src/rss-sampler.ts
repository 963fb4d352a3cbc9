import { readFileSync } from "node:fs";

/** The resident set of a process (Linux /proc), in bytes; 0 once it has exited. */
export function rssOf(pid: number): number {
  let status = "";
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return 0;
  }
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Samples a process's RSS every `everyMs` until stopped; reports the peak. */
export function sampleRss(pid: number, everyMs = 50): { stop(): number } {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssOf(pid));
    },
  };
}
