import { FfmpegError } from "./ffmpeg.ts";

// A broken driver can hang a probe; past this the CPU path is the safe answer.
const GPU_PROBE_TIMEOUT_MS = 20_000;
const REASON_MAX_CHARS = 1_000;

/** ffmpeg input arguments for the one frame a probe works on. */
export const PROBE_FRAME_INPUT: readonly string[] = ["-hide_banner", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=256x256:r=30", "-frames:v", "1"];

export interface GpuProbeOptions {
  /** Default "ffmpeg". */
  binary?: string;
  /** Abort rejects with its reason at once; the probe's processes are killed. */
  signal?: AbortSignal;
  /** Default GPU_PROBE_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Runs `probe` under a deadline: null when it succeeds, otherwise why the GPU path is not usable.
 * Settles when the deadline passes even if a process stuck in the driver has not exited yet.
 * Rejects only when the caller's signal aborts.
 */
export async function gpuUnavailableReason(options: GpuProbeOptions, probe: (signal: AbortSignal) => Promise<void>): Promise<string | null> {
  options.signal?.throwIfAborted();
  const timeoutMs = options.timeoutMs ?? GPU_PROBE_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const running = probe(signal);
  running.catch(() => undefined);
  const settled = new AbortController();
  const deadline = new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true, signal: settled.signal });
  });
  try {
    await Promise.race([running, deadline]);
    return null;
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) return `probe timed out after ${timeoutMs} ms`;
    return describe(error);
  } finally {
    settled.abort();
  }
}

/** ffmpeg's own words first: its first error line (e.g. "Cannot load libcuda.so.1") says more than the last. */
function describe(error: unknown): string {
  if (error instanceof FfmpegError) {
    const lines = error.stderrTail
      .split("\n")
      .map((line) => line.replace(/ @ 0x[0-9a-f]+\]/, "]").trim())
      .filter((line) => line !== "");
    if (lines.length > 0) return lines.join("; ").slice(0, REASON_MAX_CHARS);
  }
  return error instanceof Error ? error.message : String(error);
}
