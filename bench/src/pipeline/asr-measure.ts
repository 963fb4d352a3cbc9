import os from "node:os";
import type { Logger } from "pino";
import { createPocketsphinxEngine, loadSherpaEngine, type SpeechEngine, transcribeAudio } from "@caption/gpu-worker/asr";
import { decodePcm16kMono } from "@caption/gpu-worker/media";
import type { AsrRun } from "./bench-result.ts";
import type { BenchVideo } from "./bench-videos.ts";
import { timed } from "./cpu-clock.ts";

interface AsrCandidate {
  threads: number;
  provider: string;
  load(): Promise<SpeechEngine | null>;
}

/** pocketsphinx (one thread: the decoder has no others), and each installed sherpa-onnx model at 1 … all cores. */
function asrCandidates(options: { modelDir: string; logger: Logger }): AsrCandidate[] {
  const { modelDir, logger } = options;
  const threadCounts = [...new Set([1, 2, os.availableParallelism()])].filter((n) => n <= os.availableParallelism());
  return [
    { threads: 1, provider: "cpu", load: () => Promise.resolve(createPocketsphinxEngine({ logger })) },
    ...threadCounts.map((threads) => ({ threads, provider: "cpu", load: () => loadSherpaEngine({ modelDir, numThreads: threads, provider: "cpu", logger }) })),
  ];
}

/** Transcribes the video's audio as the worker does (decode → VAD → engine); null when the engine is not installed. */
async function measureAsr(candidate: AsrCandidate, videoPath: string, onProgress?: (fraction: number) => void, audioSeconds = 0): Promise<AsrRun | null> {
  const engine = await candidate.load();
  if (!engine) return null;
  const run = await timed(async () => {
    try {
      return await transcribeAudio({
        pcm: decodePcm16kMono(videoPath),
        engine,
        language: engine.languages[0] ?? "en",
        signal: new AbortController().signal,
        onProgress: (seconds) => audioSeconds > 0 && onProgress?.(Math.min(1, seconds / audioSeconds)),
      });
    } finally {
      await engine.close();
    }
  });
  return {
    engine: engine.name,
    model: engine.model,
    provider: candidate.provider,
    threads: candidate.threads,
    audio_seconds: run.value.duration,
    wall_ms: run.wallMs,
    rtf: run.wallMs / 1000 / run.value.duration,
    words: run.value.words.length,
  };
}

/** Every candidate that is installed, one after another, on the audio of `video`. */
export async function measureSpeechRecognition(options: {
  video: BenchVideo;
  modelDir: string;
  logger: Logger;
  onProgress?: (fraction: number) => void;
}): Promise<AsrRun[]> {
  const runs: AsrRun[] = [];
  for (const candidate of asrCandidates(options)) {
    const run = await measureAsr(candidate, options.video.path, options.onProgress, options.video.durationSeconds);
    if (run) runs.push(run);
  }
  return runs;
}
