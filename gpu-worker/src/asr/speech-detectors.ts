import { createRequire } from "node:module";
import { DEFAULT_SILERO_VAD_MODEL, verifySileroVad } from "./silero-vad-model.ts";
import { SAMPLE_RATE } from "./speech-engine.ts";
import { verifyOnnxModelFile } from "./verify-model-file.ts";

export const WINDOW_SIZE = 512;
export const MIN_SPEECH_SECONDS = 0.25;
const MIN_SILENCE_SECONDS = 0.5;
export const DEFAULT_MAX_SEGMENT_SECONDS = 25;

/** sherpa-onnx-node's Silero VAD, the calls we make of it. */
export interface NativeVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  isDetected(): boolean;
  front(enableExternalBuffer?: boolean): { start: number; samples: Float32Array };
  pop(): void;
  flush(): void;
  /** Back to the state of a new detector: no audio, no speech found, the model's own state cleared, sample indices from 0. */
  reset(): void;
}
interface SherpaVadModule {
  Vad: new (config: object, bufferSizeInSeconds: number) => NativeVad;
}

/** A detector lent to one stream of audio; `release` resets it and hands it back. */
export interface DetectorLease {
  vad: NativeVad;
  release(): void;
}

/**
 * Silero VAD detectors, built once and reused. Building one (an onnxruntime session) is synchronous native work
 * that holds the event loop for 0.1-0.6 s (more on a busy machine): done as a job starts, it would hold back
 * the cancel's notification, the children's exits and every other job's callbacks. The worker builds one per
 * job slot before it takes jobs; a detector is lent to one stream at a time and reset when it comes back.
 */
export interface SpeechDetectors {
  /** An idle detector for segments of at most `maxSpeechSeconds`, or a new one (the model file is checked first). */
  take(maxSpeechSeconds: number): Promise<DetectorLease>;
  /** Builds detectors until `count` of them exist for `maxSpeechSeconds` (default: the default segment length). */
  prepare(count: number, maxSpeechSeconds?: number): Promise<void>;
  /** How many detectors were built, and how many of them are lent out now. */
  readonly built: number;
  readonly lent: number;
}

/** Detectors of the model at `modelPath` (default: the pinned Silero VAD v6.2 that models:download installs; its size and sha256 are checked). */
export function speechDetectors(modelPath?: string): SpeechDetectors {
  const idle = new Map<number, NativeVad[]>();
  const all = new Map<number, number>();
  let built = 0;
  let lent = 0;

  const build = async (maxSpeechSeconds: number): Promise<NativeVad> => {
    const vad = await createVad(modelPath, maxSpeechSeconds);
    built++;
    all.set(maxSpeechSeconds, (all.get(maxSpeechSeconds) ?? 0) + 1);
    return vad;
  };
  const lend = (vad: NativeVad, maxSpeechSeconds: number): DetectorLease => {
    lent++;
    let returned = false;
    return {
      vad,
      release() {
        if (returned) return;
        returned = true;
        lent--;
        // Whatever the stream left (audio, a half-found segment, the model's state) goes before anyone else sees it.
        vad.reset();
        idle.set(maxSpeechSeconds, [...(idle.get(maxSpeechSeconds) ?? []), vad]);
      },
    };
  };

  return {
    async take(maxSpeechSeconds) {
      const vad = idle.get(maxSpeechSeconds)?.pop() ?? (await build(maxSpeechSeconds));
      return lend(vad, maxSpeechSeconds);
    },
    async prepare(count, maxSpeechSeconds = DEFAULT_MAX_SEGMENT_SECONDS) {
      while ((all.get(maxSpeechSeconds) ?? 0) < count) {
        const vad = await build(maxSpeechSeconds);
        idle.set(maxSpeechSeconds, [...(idle.get(maxSpeechSeconds) ?? []), vad]);
      }
    },
    get built() {
      return built;
    },
    get lent() {
      return lent;
    },
  };
}

async function createVad(modelPath: string | undefined, maxSpeechSeconds: number): Promise<NativeVad> {
  // Silero VAD exports weigh 1-3 MB; anything far outside that is not a usable model.
  if (modelPath === undefined) await verifySileroVad();
  else await verifyOnnxModelFile(modelPath, { minBytes: 500_000, maxBytes: 20_000_000 });
  // sherpa-onnx-node is CommonJS without type declarations; loaded on first use to keep imports cheap.
  const sherpa = createRequire(import.meta.url)("sherpa-onnx-node") as SherpaVadModule;
  return new sherpa.Vad(
    {
      sileroVad: {
        model: modelPath ?? DEFAULT_SILERO_VAD_MODEL,
        threshold: 0.5,
        minSpeechDuration: MIN_SPEECH_SECONDS,
        minSilenceDuration: MIN_SILENCE_SECONDS,
        maxSpeechDuration: maxSpeechSeconds,
        windowSize: WINDOW_SIZE,
      },
      sampleRate: SAMPLE_RATE,
      numThreads: 1,
      provider: "cpu",
      debug: false,
    },
    // The detector's own buffer holds at most one flush interval of speech plus its trailing silence.
    Math.ceil(maxSpeechSeconds + 10),
  );
}
