import os from "node:os";
import type { Logger } from "pino";
import { createPocketsphinxEngine, findInstalledModels, loadSherpaEngine, type SpeechEngine, transcribeAudio } from "@caption/gpu-worker/asr";
import { decodePcm16kMono } from "@caption/gpu-worker/media";
import { spokenPrefixWordErrorRate } from "@caption/gpu-worker/testing";
import type { AsrRun } from "./bench-result.ts";
import type { BenchVideo } from "./bench-videos.ts";
import { timed } from "./cpu-clock.ts";

interface AsrCandidate {
  threads: number;
  provider: string;
  load(): Promise<SpeechEngine | null>;
}

/** pocketsphinx (one thread: the decoder has no others), and each installed sherpa-onnx model at 1 … all cores. */
async function asrCandidates(options: { modelDir: string; logger: Logger }): Promise<AsrCandidate[]> {
  const { modelDir, logger } = options;
  const threadCounts = [...new Set([1, 2, os.availableParallelism()])].filter((n) => n <= os.availableParallelism());
  const models = (await findInstalledModels(modelDir)).map((m) => m.record.name);
  return [
    { threads: 1, provider: "cpu", load: () => Promise.resolve(createPocketsphinxEngine({ logger })) },
    ...models.flatMap((model) =>
      threadCounts.map((threads) => ({ threads, provider: "cpu", load: () => loadSherpaEngine({ modelDir, model, numThreads: threads, provider: "cpu", logger }) })),
    ),
  ];
}

/** Transcribes the video's audio as the worker does (decode → VAD → engine); null when the engine is not installed. */
async function measureAsr(candidate: AsrCandidate, video: BenchVideo, onProgress?: (fraction: number) => void): Promise<AsrRun | null> {
  const audioSeconds = video.durationSeconds;
  const engine = await candidate.load();
  if (!engine) return null;
  const run = await timed(async () => {
    try {
      return await transcribeAudio({
        pcm: decodePcm16kMono(video.path),
        engine,
        // The narration is English.
        language: engine.languages.includes("en") ? "en" : (engine.languages[0] ?? "en"),
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
    wer: spokenPrefixWordErrorRate(video.narration, run.value.words.map((w) => w.text).join(" ")),
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
  for (const candidate of await asrCandidates(options)) {
    const run = await measureAsr(candidate, options.video, options.onProgress);
    if (run) runs.push(run);
  }
  return runs;
}
