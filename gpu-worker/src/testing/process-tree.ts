// Test helper: which processes a test started, read from Linux /proc.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The kernel's command name, at most 15 characters. */
  name: string;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (name) state ppid ...": the name may contain spaces and parentheses.
    const close = stat.lastIndexOf(")");
    const [state, ppid] = stat.slice(close + 2).split(" ");
    if (state === "Z") return undefined;
    return { pid, ppid: Number(ppid), name: stat.slice(stat.indexOf("(") + 1, close) };
  } catch {
    return undefined;
  }
}

/** Live (not zombie) descendants of `root`. */
export function descendantProcesses(root: number): ProcessInfo[] {
  const all = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => readProcess(Number(entry)))
    .filter((info) => info !== undefined);
  const found: ProcessInfo[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const info of all) {
      if (parents.has(info.ppid) && !parents.has(info.pid)) {
        parents.add(info.pid);
        found.push(info);
        grew = true;
      }
    }
  }
  return found;
}

/** False once `pid` has exited (zombies count as exited). */
export function isRunning(pid: number): boolean {
  return readProcess(pid) !== undefined;
}

/** The process's arguments; none once it is gone. */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "");
  } catch {
    return [];
  }
}

/** Bytes the process has written so far (to files and pipes alike), 0 once it is gone. */
export function bytesWritten(pid: number): number {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The files the process has open, by path; none once it is gone. */
export function openFiles(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}
