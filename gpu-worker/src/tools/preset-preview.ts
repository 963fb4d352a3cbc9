import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { Logger } from "pino";
import type { PresetId } from "@caption/shared/api/preset";
import type { Word } from "@caption/shared/api/transcript";
import { resolveStyle, type VideoSize } from "@caption/shared/style/resolve-style";
import type { SpeechEngine } from "../asr/speech-engine.ts";
import { transcribeAudio } from "../asr/transcribe-audio.ts";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import type { H264Encoder } from "../media/h264-encoder.ts";
import { renderCaptionedVideo } from "../render/render-video.ts";
import { buildStyledCues } from "../render/styled-cues.ts";

/**
 * About 6.5 s of flite speech: two sentences, so cues break and every animation gets several words; plain
 * words the pocketsphinx fallback mostly gets right.
 */
export const PREVIEW_SENTENCE = "This is a sample video with spoken words. Watch how every word on the screen follows the voice as it speaks.";

const PAD_SECONDS = 0.5;
const FPS = 30;

export type PreviewStage = "speaking" | "transcribing" | "rendering";

export interface PresetPreviewOptions {
  preset: PresetId;
  video: VideoSize;
  outputPath: string;
  engine: SpeechEngine;
  encoder: H264Encoder;
  signal: AbortSignal;
  /** Fraction (0..1) of the current stage done. */
  onProgress?: (stage: PreviewStage, fraction: number) => void;
  logger?: Logger;
  vadModelPath?: string;
  ffmpegBinary?: string;
}

/**
 * A short sample video for watching a preset: flite speaks PREVIEW_SENTENCE over a slowly moving gradient,
 * the speech engine transcribes it, and the captions are burned in exactly as a job would burn them.
 */
export async function renderPresetPreview(options: PresetPreviewOptions): Promise<{ words: Word[]; framesDrawn: number; durationSeconds: number }> {
  const { signal, onProgress, logger } = options;
  const dir = await mkdtemp(path.join(tmpdir(), "preset-preview-"));
  try {
    onProgress?.("speaking", 0);
    const speechPath = path.join(dir, "speech.wav");
    await execa("flite", ["-voice", "slt", "-t", PREVIEW_SENTENCE, "-o", speechPath], { cancelSignal: signal });
    const sourcePath = path.join(dir, "source.mp4");
    await runFfmpeg({ binary: options.ffmpegBinary, signal, logger, args: sourceArgs(speechPath, sourcePath, options.video) });
    onProgress?.("speaking", 1);

    const media = await probeMedia(sourcePath, { signal });
    const language = options.engine.languages.includes("en") ? "en" : "auto";
    const { words } = await transcribeAudio({
      pcm: decodePcm16kMono(sourcePath, { signal, binary: options.ffmpegBinary }),
      engine: options.engine,
      language,
      signal,
      logger,
      ...(options.vadModelPath !== undefined ? { vadModelPath: options.vadModelPath } : {}),
      onProgress: (seconds) => onProgress?.("transcribing", Math.min(1, seconds / media.durationSeconds)),
    });
    onProgress?.("transcribing", 1);

    const style = resolveStyle({ preset: options.preset, video: options.video });
    const cues = buildStyledCues(words, style, media.durationSeconds);
    const { framesDrawn } = await renderCaptionedVideo({
      inputPath: sourcePath,
      outputPath: options.outputPath,
      cues,
      style,
      media,
      encoder: options.encoder,
      signal,
      logger,
      ffmpegBinary: options.ffmpegBinary,
      onProgress: (fraction) => onProgress?.("rendering", fraction),
    });
    return { words, framesDrawn, durationSeconds: media.durationSeconds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function sourceArgs(speechPath: string, outputPath: string, video: VideoSize): string[] {
  const size = `${video.width}x${video.height}`;
  const delayMs = Math.round(PAD_SECONDS * 1000);
  return [
    "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
    "-f", "lavfi", "-i", `gradients=s=${size}:r=${FPS}:c0=0x1d2b4a:c1=0x4a6b5d:c2=0x6b4a5d:nb_colors=3:speed=0.004:seed=7`,
    "-i", speechPath,
    // The picture runs as long as the padded speech.
    "-filter_complex", `[1:a]adelay=delays=${delayMs}:all=1,apad=pad_dur=${PAD_SECONDS},aresample=48000[a]`,
    "-map", "0:v", "-map", "[a]",
    "-shortest",
    "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p",
    "-c:a", "aac", "-b:a", "128k",
    "-f", "mp4", outputPath,
  ];
}
