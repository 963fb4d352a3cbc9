import type { Logger } from "pino";
import type { Env } from "@caption/shared/config/env";
import type { GpuProbeOptions } from "./gpu-probe.ts";
import { probeH264Encoder, type H264Encoder } from "./h264-encoder.ts";
import { probeVideoDecoder, type VideoDecoder } from "./video-decoder.ts";

interface HardwarePaths {
  encoder: H264Encoder;
  decoder: VideoDecoder;
}

interface DetectHardwarePathsOptions extends GpuProbeOptions {
  logger: Logger;
  /** The execution provider the speech engine runs on, when the engine reports it. */
  asrProvider?: Env["ASR_PROVIDER"];
}

/**
 * Probes NVENC and NVDEC concurrently, once at start-up, and logs one line saying which path runs.
 * Each falls back to the CPU on its own; only an abort rejects.
 */
export async function detectHardwarePaths(options: DetectHardwarePathsOptions): Promise<HardwarePaths> {
  const [encoding, decoding] = await Promise.all([probeH264Encoder(options), probeVideoDecoder(options)]);
  const { encoder } = encoding;
  const { decoder } = decoding;
  const decode = decoder.decoder === "nvdec" ? "GPU (NVDEC)" : "CPU";
  const encode = encoder.encoder === "h264_nvenc" ? "GPU (h264_nvenc)" : "CPU (libx264)";
  const asr = options.asrProvider === undefined ? "" : `, ASR on ${options.asrProvider}`;
  options.logger.info(
    {
      decoder: decoder.decoder,
      encoder: encoder.encoder,
      asr_provider: options.asrProvider,
      nvdec_unavailable: decoding.fallbackReason ?? undefined,
      nvenc_unavailable: encoding.fallbackReason ?? undefined,
    },
    `video decoding on ${decode}, encoding on ${encode}${asr}`,
  );
  return { encoder, decoder };
}
