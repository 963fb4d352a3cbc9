import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Logger } from "pino";

const STDERR_TAIL_CHARS = 4_096;

/**
 * A long-lived `pocketsphinx_batch` reading its control file from stdin and writing its results to
 * stdout: the acoustic and language models load once, then each control line decodes one file.
 */
export interface PocketsphinxBatch {
  readonly pid: number | undefined;
  /** Sends one control-file line; resolves with the lines it answers. One request at a time. */
  request(controlLine: string): Promise<string[]>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Resolves when the process has exited, for whatever reason. */
  readonly exited: Promise<void>;
}

/**
 * `args` say where the results go (e.g. `-hypseg /dev/stdout`); `replyLength` tells from the first line of an
 * answer how many lines the whole answer has.
 */
export function startPocketsphinxBatch(
  binary: string,
  args: readonly string[],
  replyLength: (firstLine: string) => number,
  logger?: Logger,
): PocketsphinxBatch {
  // Node's stdio pipes are socket pairs, which pocketsphinx cannot fopen() through /dev/stdin; the
  // shell puts real pipes in between. When pocketsphinx ends, `kill 0` ends the feeding `cat` too,
  // which would otherwise wait on stdin forever. The group of its own lets kill() take all down.
  const script = 'cat | { "$0" "$@" -ctl /dev/stdin; echo "exit status $?" >&2; kill 0; } | cat';
  const child = spawn("sh", ["-c", script, binary, ...args], { stdio: ["pipe", "pipe", "pipe"], detached: true });
  let stderrTail = "";
  let failure: Error | undefined;
  let waiting: { resolve: (lines: string[]) => void; reject: (error: Error) => void } | undefined;
  let reply: string[] = [];

  const fail = (error: Error): void => {
    failure ??= error;
    waiting?.reject(failure);
    waiting = undefined;
  };

  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS);
  });
  // EPIPE after an early exit is reported through the exit handler below.
  child.stdin.on("error", () => {});
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (!waiting) {
      logger?.warn({ line: line.slice(0, 200) }, "unrequested pocketsphinx output");
      return;
    }
    reply.push(line);
    if (reply.length < replyLength(reply[0]!)) return;
    const [current, lines] = [waiting, reply];
    waiting = undefined;
    reply = [];
    current.resolve(lines);
  });

  const exited = new Promise<void>((resolve) => {
    child.once("error", (error) => {
      fail(new Error(`cannot start ${binary}: ${error.message}`, { cause: error }));
      resolve();
    });
    child.once("close", (code, signal) => {
      fail(new Error(`${binary} stopped (${signal ?? `code ${code}`}): ${lastErrorLines(stderrTail)}`));
      resolve();
    });
  });

  return {
    pid: child.pid,
    exited,
    request(controlLine) {
      if (failure) return Promise.reject(failure);
      if (waiting) return Promise.reject(new Error("pocketsphinx request already in flight"));
      return new Promise<string[]>((resolve, reject) => {
        waiting = { resolve, reject };
        child.stdin.write(`${controlLine}\n`);
      });
    },
    async kill() {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // The group is already gone.
        }
      }
      await exited;
    },
  };
}

/** The lines of pocketsphinx's log that say what went wrong (its last lines when none says ERROR or FATAL). */
export function lastErrorLines(stderr: string): string {
  const lines = stderr.split("\n").filter((line) => /ERROR|FATAL|^exit status/.test(line));
  return (lines.length > 0 ? lines.slice(-3) : stderr.trim().split("\n").slice(-3)).join(" | ").slice(0, 1_000);
}
