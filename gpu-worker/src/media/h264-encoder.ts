import type { Logger } from "pino";
import { runFfmpeg } from "./ffmpeg.ts";

export type H264EncoderName = "h264_nvenc" | "libx264";

export interface H264Encoder {
  encoder: H264EncoderName;
  /** Output-side ffmpeg arguments: codec, quality and a pixel format every player decodes. */
  args: string[];
}

export const NVENC_ENCODER: H264Encoder = {
  encoder: "h264_nvenc",
  args: ["-c:v", "h264_nvenc", "-preset", "p4", "-rc", "vbr", "-cq", "23", "-b:v", "0", "-pix_fmt", "yuv420p"],
};

export const X264_ENCODER: H264Encoder = {
  encoder: "libx264",
  args: ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p"],
};

// A broken driver can hang the probe; past this the CPU encoder is the safe answer.
const PROBE_TIMEOUT_MS = 20_000;

/**
 * Encodes one frame with h264_nvenc to see whether this machine can (ffmpeg lists the encoder
 * even without a GPU); falls back to libx264. Call once at start-up.
 */
export async function detectH264Encoder(options: { binary?: string; logger?: Logger; signal?: AbortSignal } = {}): Promise<H264Encoder> {
  const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    await runFfmpeg({
      binary: options.binary,
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      args: ["-hide_banner", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=256x256:r=30", "-frames:v", "1", ...NVENC_ENCODER.args, "-f", "null", "-"],
    });
    options.logger?.info({ encoder: NVENC_ENCODER.encoder }, "H.264 encoding on the GPU (h264_nvenc)");
    return NVENC_ENCODER;
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const reason = error instanceof Error ? error.message : String(error);
    options.logger?.info({ encoder: X264_ENCODER.encoder, nvenc_error: reason }, "h264_nvenc unavailable; H.264 encoding on the CPU (libx264)");
    return X264_ENCODER;
  }
}
