import type { Logger } from "pino";
import type { Word } from "@caption/shared/api/transcript";
import { createPocketsphinxEngine, loadSherpaEngine, transcribeAudio } from "@caption/gpu-worker/asr";
import { decodePcm16kMono } from "@caption/gpu-worker/media";
import type { BenchVideo } from "./bench-videos.ts";

/**
 * The words the worker's engine hears in a video (ASR_ENGINE=auto: sherpa-onnx when a model is installed,
 * else pocketsphinx), transcribed as a job transcribes them: what the render sweeps caption when no job ran.
 */
export async function transcribeForSweeps(video: BenchVideo, options: { modelDir: string; logger: Logger }): Promise<{ engine: string; words: Word[] }> {
  const engine = (await loadSherpaEngine({ modelDir: options.modelDir, logger: options.logger })) ?? createPocketsphinxEngine({ logger: options.logger });
  try {
    const language = engine.languages[0] ?? "en";
    const transcribed = await transcribeAudio({ pcm: decodePcm16kMono(video.path), engine, language, signal: new AbortController().signal });
    return { engine: engine.name, words: transcribed.words };
  } finally {
    await engine.close();
  }
}
