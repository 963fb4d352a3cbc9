import type { Logger } from "pino";
import { runFfmpeg } from "./ffmpeg.ts";
import { gpuUnavailableReason, type GpuProbeOptions } from "./gpu-probe.ts";

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

export interface EncoderChoice {
  encoder: H264Encoder;
  /** Why h264_nvenc is not used; null when it is. */
  fallbackReason: string | null;
}

/**
 * Encodes one frame with h264_nvenc to see whether this machine can (ffmpeg lists the encoder
 * even without a GPU); falls back to libx264. Call once at start-up.
 */
export async function probeH264Encoder(options: GpuProbeOptions = {}): Promise<EncoderChoice> {
  const fallbackReason = await gpuUnavailableReason(options, (signal) =>
    runFfmpeg({
      binary: options.binary,
      signal,
      args: ["-hide_banner", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=256x256:r=30", "-frames:v", "1", ...NVENC_ENCODER.args, "-f", "null", "-"],
    }),
  );
  return { encoder: fallbackReason === null ? NVENC_ENCODER : X264_ENCODER, fallbackReason };
}

/** probeH264Encoder, logging which encoder runs, for callers that do not decode video (detectHardwarePaths logs both). */
export async function detectH264Encoder(options: GpuProbeOptions & { logger?: Logger } = {}): Promise<H264Encoder> {
  const { encoder, fallbackReason } = await probeH264Encoder(options);
  if (fallbackReason === null) options.logger?.info({ encoder: encoder.encoder }, "H.264 encoding on the GPU (h264_nvenc)");
  else options.logger?.info({ encoder: encoder.encoder, nvenc_error: fallbackReason }, "h264_nvenc unavailable; H.264 encoding on the CPU (libx264)");
  return encoder;
}
