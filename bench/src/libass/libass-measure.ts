import { mkdtemp, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { H264Encoder, MediaInfo, VideoDecoder } from "@caption/gpu-worker/media";
import { type Cue, audioOutputArgs } from "@caption/gpu-worker/render";
import { assSubtitles, linkBundledFonts } from "@caption/gpu-worker/subtitles";
import { burnInWithLibass } from "./libass-burn-in.ts";
import type { CostMeasurement } from "../pipeline/bench-result.ts";
import { timed } from "../pipeline/cpu-clock.ts";

/** What users build instead: the same cues and look as an ASS script, burned in by ffmpeg's libass filter. */
export async function measureLibass(options: {
  inputPath: string;
  outputPath: string;
  workDir: string;
  media: MediaInfo;
  cues: readonly Cue[];
  style: ResolvedStyle;
  encoder: H264Encoder;
  decoder: VideoDecoder;
}): Promise<CostMeasurement> {
  const fontsDir = await mkdtemp(path.join(options.workDir, "ass-fonts-"));
  await linkBundledFonts(fontsDir);
  const assPath = path.join(options.workDir, `${options.style.preset}.ass`);
  // Writing the script is part of what the user's pipeline does too.
  const run = await timed(async () => {
    await writeFile(assPath, assSubtitles(options.cues, options.style), "utf8");
    await burnInWithLibass({
      inputPath: options.inputPath,
      outputPath: options.outputPath,
      assPath,
      fontsDir,
      decoderArgs: options.decoder.inputArgs,
      encoderArgs: options.encoder.args,
      audioArgs: audioOutputArgs(options.media),
    });
  });
  return { wall_ms: run.wallMs, cpu_ms: run.cpuMs };
}
