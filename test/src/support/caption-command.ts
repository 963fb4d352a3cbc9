import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

export interface CaptionCommand {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with its exit code (or signal) once its output is read. */
  exited: Promise<number | NodeJS.Signals>;
  /** Resolves once stderr matches `pattern`; rejects if the command exits first. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/**
 * The caption command as `npm run caption` runs it (node on control-plane/src/cli/caption.ts from the repository
 * root), with INIT_CWD the caller's directory as npm sets it; stdout and stderr are pipes (not a terminal).
 */
export function runCaptionCommand(args: string[], options: { cwd: string; env?: Record<string, string> }): CaptionCommand {
  const env: NodeJS.ProcessEnv = { ...process.env, INIT_CWD: options.cwd, LOG_LEVEL: "info", ...options.env };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "control-plane/src/cli/caption.ts"), ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const wake = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const listener of [...wake]) listener();
  });
  const exited = once(child, "close").then(([code, signal]) => (code ?? signal) as number | NodeJS.Signals);
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitForStderr(pattern, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = stderr.match(pattern);
          if (match === null) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${pattern} on stderr within ${timeoutMs} ms:\n${stderr}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          wake.delete(check);
        };
        wake.add(check);
        void exited.then((code) => {
          if (!wake.has(check)) return;
          done();
          reject(new Error(`the command exited with ${code} before ${pattern}:\n${stderr}\n${stdout}`));
        });
        check();
      });
    },
  };
}
