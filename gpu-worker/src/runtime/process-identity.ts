import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Who a process is, in terms that survive its death: a pid alone is reused, so the kernel boot, the
 * pid namespace (containers each have their own) and the process's start time come with it. On a
 * system without /proc the Linux-only fields are null and liveness falls back to heartbeats.
 */
export interface ProcessIdentity {
  hostname: string;
  pid: number;
  bootId: string | null;
  pidNamespace: string | null;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22). */
  startTicks: number | null;
}

export function currentProcess(): ProcessIdentity {
  return { hostname: hostname(), pid: process.pid, bootId: bootId(), pidNamespace: pidNamespace(), startTicks: startTicksOf(process.pid) };
}

/**
 * Whether `other` is alive, when this process can tell: "alive" or "dead" when both run under the
 * same kernel boot and pid namespace (its pid means the same process here), else "unknown".
 */
export function processLiveness(other: ProcessIdentity, self: ProcessIdentity = currentProcess(), startTicks: (pid: number) => number | null = startTicksOf): "alive" | "dead" | "unknown" {
  // Same host name, another boot: the machine restarted since, so that process is gone.
  if (other.hostname === self.hostname && other.bootId && self.bootId && other.bootId !== self.bootId) return "dead";
  if (!other.bootId || other.bootId !== self.bootId || !other.pidNamespace || other.pidNamespace !== self.pidNamespace) return "unknown";
  const ticks = startTicks(other.pid);
  return ticks !== null && ticks === other.startTicks ? "alive" : "dead";
}

function bootId(): string | null {
  return readOrNull(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
}

function pidNamespace(): string | null {
  return readOrNull(() => readlinkSync("/proc/self/ns/pid"));
}

/** The start time of a running process; null when there is none (a zombie is dead too). */
export function startTicksOf(pid: number): number | null {
  return readOrNull(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return null;
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  });
}

function readOrNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}
