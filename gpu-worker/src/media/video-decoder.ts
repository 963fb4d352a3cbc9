import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runFfmpeg } from "./ffmpeg.ts";
import { gpuUnavailableReason, PROBE_FRAME_INPUT, type GpuProbeOptions } from "./gpu-probe.ts";

export type VideoDecoderName = "nvdec" | "software";

export interface VideoDecoder {
  decoder: VideoDecoderName;
  /** Input-side ffmpeg arguments, placed right before the source's input arguments. */
  inputArgs: string[];
}

/**
 * Without `-hwaccel_output_format cuda` the decoded frames come back to system memory, so CPU filters
 * (overlay) work unchanged; a codec or profile NVDEC cannot decode falls back to software per stream.
 */
export const NVDEC_DECODER: VideoDecoder = { decoder: "nvdec", inputArgs: ["-hwaccel", "cuda", "-hwaccel_device", "0"] };

export const SOFTWARE_DECODER: VideoDecoder = { decoder: "software", inputArgs: [] };

interface DecoderChoice {
  decoder: VideoDecoder;
  /** Why NVDEC is not used; null when it is. */
  fallbackReason: string | null;
}

/**
 * Decodes one H.264 frame with NVDEC to see whether this machine can; falls back to software decoding.
 * ffmpeg quietly decodes in software when the CUDA hwaccel fails to initialise, so the probe keeps the
 * frame on the GPU and downloads it with `hwdownload`, which fails on a frame that is not a CUDA frame.
 * Call once at start-up.
 */
export async function probeVideoDecoder(options: GpuProbeOptions = {}): Promise<DecoderChoice> {
  const fallbackReason = await gpuUnavailableReason(options, async (signal) => {
    const dir = await mkdtemp(path.join(tmpdir(), "nvdec-probe-"));
    try {
      const clip = path.join(dir, "frame.mp4");
      await runFfmpeg({
        binary: options.binary,
        signal,
        args: [...PROBE_FRAME_INPUT, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mp4", clip],
      });
      await runFfmpeg({
        binary: options.binary,
        signal,
        args: [
          "-hide_banner", "-nostdin", "-v", "error",
          ...NVDEC_DECODER.inputArgs, "-hwaccel_output_format", "cuda", "-i", clip,
          "-frames:v", "1", "-vf", "hwdownload,format=nv12", "-f", "null", "-",
        ],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  return { decoder: fallbackReason === null ? NVDEC_DECODER : SOFTWARE_DECODER, fallbackReason };
}
