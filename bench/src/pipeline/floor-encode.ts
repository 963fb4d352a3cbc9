import { runFfmpeg, type H264Encoder, type MediaInfo, type VideoDecoder } from "@caption/gpu-worker/media";
import { audioOutputArgs, mp4OutputArgs } from "@caption/gpu-worker/render";
import { timed } from "./cpu-clock.ts";
import type { CostMeasurement } from "./bench-result.ts";

/**
 * The floor no captioner can beat: decode and re-encode the same input with the same encoder settings,
 * audio handled as the renderer handles it, and no captions.
 */
export function floorArgs(media: Pick<MediaInfo, "hasAudio" | "audioCodec">, encoder: H264Encoder, decoder: VideoDecoder, inputPath: string, outputPath: string): string[] {
  return ["-hide_banner", "-loglevel", "error", "-y", ...decoder.inputArgs, "-i", inputPath, "-map", "0:v:0", ...audioOutputArgs(media), ...encoder.args, ...mp4OutputArgs(outputPath)];
}

export async function measureFloor(options: {
  media: MediaInfo;
  encoder: H264Encoder;
  decoder: VideoDecoder;
  inputPath: string;
  outputPath: string;
  onProgress?: (fraction: number) => void;
}): Promise<CostMeasurement> {
  const { media } = options;
  const run = await timed(() =>
    runFfmpeg({
      args: floorArgs(media, options.encoder, options.decoder, options.inputPath, options.outputPath),
      onProgress: (p) => {
        if (p.outTimeSeconds !== null) options.onProgress?.(Math.min(1, p.outTimeSeconds / media.durationSeconds));
      },
    }),
  );
  return { wall_ms: run.wallMs, cpu_ms: run.cpuMs };
}
