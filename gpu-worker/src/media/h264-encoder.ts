import { runFfmpeg } from "./ffmpeg.ts";
import { gpuUnavailableReason, PROBE_FRAME_INPUT, type GpuProbeOptions } from "./gpu-probe.ts";

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

interface EncoderChoice {
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
      args: [...PROBE_FRAME_INPUT, ...NVENC_ENCODER.args, "-f", "null", "-"],
    }),
  );
  return { encoder: fallbackReason === null ? NVENC_ENCODER : X264_ENCODER, fallbackReason };
}
