import type { Logger } from "pino";
import type { Word } from "@caption/shared/api/transcript";
import type { Env } from "@caption/shared/config/env";
import { loadSpeechEngine, modelFolder, transcribeAudio } from "@caption/gpu-worker/asr";
import { decodePcm16kMono } from "@caption/gpu-worker/media";
import type { BenchVideo } from "./bench-videos.ts";

/**
 * The words the worker's engine hears in a video (picked as the worker picks it, from ASR_ENGINE), transcribed
 * as a job transcribes them: what the render sweeps caption when no job ran.
 */
export async function transcribeForSweeps(video: BenchVideo, options: { env: Env; logger: Logger }): Promise<Word[]> {
  const { env, logger } = options;
  const engine = await loadSpeechEngine({ engine: env.ASR_ENGINE, modelDir: modelFolder(env), provider: env.ASR_PROVIDER, logger });
  try {
    const language = engine.languages[0] ?? "en";
    const transcribed = await transcribeAudio({ pcm: decodePcm16kMono(video.path), engine, language, signal: new AbortController().signal });
    return transcribed.words;
  } finally {
    await engine.close();
  }
}
