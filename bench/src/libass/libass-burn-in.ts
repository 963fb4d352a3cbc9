import { runFfmpeg, type FfmpegProgress } from "@caption/gpu-worker/media";
import { mp4OutputArgs } from "@caption/gpu-worker/render";
import { assFilter } from "@caption/gpu-worker/subtitles";

export interface LibassBurnInOptions {
  inputPath: string;
  outputPath: string;
  /** ASS script, e.g. from assSubtitles(). */
  assPath: string;
  /** One flat folder holding the fonts the script names (linkBundledFonts()). */
  fontsDir: string;
  /** Input-side decoder arguments, as our renderer's (VideoDecoder.inputArgs). */
  decoderArgs?: readonly string[];
  /** Output-side video encoder arguments, as our renderer's (H264Encoder.args). */
  encoderArgs: readonly string[];
  /** Audio mapping and codec, as our renderer's (audioOutputArgs()); default: copy the first track if there is one. */
  audioArgs?: readonly string[];
  signal?: AbortSignal;
  onProgress?: (progress: FfmpegProgress) => void;
}

/**
 * Burns an ASS script into a video the way users do it themselves: ffmpeg's `ass` filter (libass) with the
 * same encoder, audio handling and MP4 layout as our renderer.
 */
export async function burnInWithLibass(options: LibassBurnInOptions): Promise<void> {
  await runFfmpeg({
    signal: options.signal,
    onProgress: options.onProgress,
    args: [
      "-hide_banner",
      "-loglevel", "error",
      "-y",
      ...(options.decoderArgs ?? []),
      "-i", options.inputPath,
      "-vf", assFilter(options.assPath, options.fontsDir),
      "-map", "0:v:0",
      ...(options.audioArgs ?? ["-map", "0:a:0?", "-c:a", "copy"]),
      ...options.encoderArgs,
      ...mp4OutputArgs(options.outputPath),
    ],
  });
}
