import type { Readable, Writable } from "node:stream";
import { execa } from "execa";
import type { Logger } from "pino";
import { createProgressParser, type FfmpegProgress } from "./ffmpeg-progress.ts";

export type { FfmpegProgress } from "./ffmpeg-progress.ts";

export interface FfmpegOptions {
  /** Arguments as data, never a shell string. */
  args: readonly string[];
  /** Default "ffmpeg"; the composition root passes FFMPEG_PATH. */
  binary?: string;
  /** Abort kills the process at once (SIGKILL; see launch). */
  signal?: AbortSignal;
  /** Wall-clock deadline: past it the process is killed like an abort and the run fails with `timedOut`. */
  timeoutMs?: number;
  /** When given, `-progress pipe:1 -nostats` is added and stdout carries progress. */
  onProgress?: (progress: FfmpegProgress) => void;
  logger?: Logger;
}

/** A non-zero exit, a kill by signal, a missed deadline or a failure to start; abort rejects with the signal's reason instead. */
export class FfmpegError extends Error {
  readonly exitCode: number | null;
  readonly stderrTail: string;
  /** Killed because the run passed its `timeoutMs`. */
  readonly timedOut: boolean;
  /** The binary could not be started at all (missing, not executable): never the input's fault. */
  readonly notStarted: boolean;
  constructor(message: string, exitCode: number | null, stderrTail: string, options?: ErrorOptions & { timedOut?: boolean; notStarted?: boolean }) {
    super(message, options);
    this.name = "FfmpegError";
    this.exitCode = exitCode;
    this.stderrTail = stderrTail;
    this.timedOut = options?.timedOut ?? false;
    this.notStarted = options?.notStarted ?? false;
  }
}

// ffmpeg can run for minutes; only the end of stderr explains a failure.
const STDERR_TAIL_CHARS = 8_192;
const CAPTURE_LIMIT_BYTES = 16 * 1024 * 1024;

type StdoutMode = "ignore" | "pipe" | "capture";

interface Launch {
  stdin: Writable | null;
  stdout: Readable | null;
  pid: number | undefined;
  /** Resolves with the captured stdout ("" unless mode "capture"). */
  done: Promise<string>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines[lines.length - 1]?.trim() ?? "";
}

function launch(
  options: FfmpegOptions,
  defaultBinary: string,
  stdin: "ignore" | "pipe" | Readable,
  stdoutMode: StdoutMode,
): Launch {
  const binary = options.binary ?? defaultBinary;
  const { signal, onProgress, logger, timeoutMs } = options;
  const args = onProgress ? ["-progress", "pipe:1", "-nostats", ...options.args] : [...options.args];
  // Fails the run when onProgress throws, instead of crashing the process from a stream handler.
  const internal = new AbortController();
  let callbackError: unknown;
  const stop = signal ? AbortSignal.any([signal, internal.signal]) : internal.signal;
  let stoppedAt: number | undefined;
  stop.addEventListener("abort", () => (stoppedAt = performance.now()), { once: true });

  const subprocess = execa(binary, args, {
    stdin: typeof stdin === "string" ? stdin : "pipe",
    input: typeof stdin === "string" ? undefined : stdin,
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    cancelSignal: stop,
    // A stopped run's output is thrown away, so ffmpeg is killed at once rather than asked to finish (SIGTERM):
    // on SIGTERM it still flushes its encoders and writes a trailer, and it waits for its demuxer and muxer
    // threads, which stay blocked on a pipe nobody serves any more (the render's caption stream waiting for
    // cues, PCM no one reads): such a run ended only on the SIGKILL after the grace period, 2 s after a cancel.
    killSignal: "SIGKILL",
    forceKillAfterDelay: false,
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
  });

  logger?.debug({ binary, pid: subprocess.pid, args }, `${binary} started`);

  let stderrTail = "";
  subprocess.stderr.setEncoding("utf8");
  subprocess.stderr.on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });

  const captured: Buffer[] = [];
  let capturedBytes = 0;
  if (onProgress) {
    const parser = createProgressParser();
    subprocess.stdout.setEncoding("utf8");
    subprocess.stdout.on("data", (chunk: string) => {
      if (internal.signal.aborted) return;
      try {
        for (const progress of parser.push(chunk)) onProgress(progress);
      } catch (error) {
        callbackError = error;
        internal.abort(error);
      }
    });
  } else if (stdoutMode === "capture") {
    subprocess.stdout.on("data", (chunk: Buffer) => {
      capturedBytes += chunk.length;
      if (capturedBytes > CAPTURE_LIMIT_BYTES) {
        internal.abort(new FfmpegError(`${binary} wrote more than ${CAPTURE_LIMIT_BYTES} bytes to stdout`, null, stderrTail));
        return;
      }
      captured.push(chunk);
    });
  } else if (stdoutMode === "ignore") {
    subprocess.stdout.resume();
  }

  const done = subprocess.then((result) => {
    // `canceled`: stopped through the abort signal (then `signal` is SIGKILL); a signal without it was someone else's.
    const exit = { exit_code: result.exitCode ?? null, signal: result.signal ?? null, canceled: result.isCanceled };
    // How long after the stop it was gone (its exit seen here): what a cancel waits on.
    const stopped = stoppedAt === undefined ? {} : { gone_ms: Math.round(performance.now() - stoppedAt) };
    logger?.debug({ binary, pid: subprocess.pid, ...exit, ...stopped }, `${binary} exited`);
    if (signal?.aborted) throw abortReason(signal);
    if (internal.signal.aborted) throw callbackError ?? internal.signal.reason;
    if (!result.failed) return Buffer.concat(captured).toString("utf8");
    const exitCode = result.exitCode ?? null;
    const timedOut = result.timedOut;
    const notStarted = !timedOut && exitCode === null && !result.signal;
    const reason = timedOut
      ? `ran past its deadline of ${timeoutMs} ms and was stopped`
      : exitCode !== null
        ? `exited with code ${exitCode}`
        : result.signal
          ? `was killed by ${result.signal}`
          : `could not run: ${result.originalMessage ?? result.shortMessage}`;
    const detail = lastLine(stderrTail);
    const error = new FfmpegError(`${binary} ${reason}${detail ? `: ${detail}` : ""}`, exitCode, stderrTail, {
      cause: result.cause,
      timedOut,
      notStarted,
    });
    logger?.warn({ binary, exitCode, stderr_tail: stderrTail }, `${binary} failed`);
    throw error;
  });

  return {
    stdin: stdin === "pipe" ? subprocess.stdin : null,
    stdout: stdoutMode === "pipe" && !onProgress ? subprocess.stdout : null,
    pid: subprocess.pid,
    done,
  };
}

/**
 * The caller awaits `done` only after it has finished writing or reading, so an early failure
 * must not count as an unhandled rejection meanwhile.
 */
function settledLater(done: Promise<string>): Promise<void> {
  const result = done.then(() => undefined);
  result.catch(() => undefined);
  return result;
}

/** Runs ffmpeg to completion, optionally feeding `input` to its stdin. */
export async function runFfmpeg(options: FfmpegOptions & { input?: Readable }): Promise<void> {
  await launch(options, "ffmpeg", options.input ?? "ignore", "ignore").done;
}

/** Starts ffmpeg for piping data in (e.g. raw frames with `-i pipe:0`); end `stdin` to let it finish. */
export function spawnFfmpeg(options: FfmpegOptions): { stdin: Writable; done: Promise<void>; pid: number | undefined } {
  const started = launch(options, "ffmpeg", "pipe", "ignore");
  if (!started.stdin) throw new Error("ffmpeg stdin is not piped");
  return { stdin: started.stdin, done: settledLater(started.done), pid: started.pid };
}

/** Starts ffmpeg writing its output to stdout (`pipe:1`); read `stdout` to the end, then await `done`. */
export function streamFfmpegOutput(options: Omit<FfmpegOptions, "onProgress">): {
  stdout: Readable;
  done: Promise<void>;
  pid: number | undefined;
} {
  const started = launch(options, "ffmpeg", "ignore", "pipe");
  if (!started.stdout) throw new Error("ffmpeg stdout is not piped");
  return { stdout: started.stdout, done: settledLater(started.done), pid: started.pid };
}

/** Runs ffprobe (default binary "ffprobe") and returns what it printed on stdout. */
export async function runFfprobe(options: Omit<FfmpegOptions, "onProgress">): Promise<string> {
  return launch(options, "ffprobe", "ignore", "capture").done;
}
