import type { Logger } from "pino";
import type { Env } from "@caption/shared/config/env";
import { createPocketsphinxEngine, type PocketsphinxEngineOptions } from "./pocketsphinx-engine.ts";
import { ModelVerificationError } from "./sherpa/model-files.ts";
import { verifySileroVad } from "./silero-vad-model.ts";
import { loadSherpaEngine } from "./sherpa/sherpa-engine.ts";
import type { ExecutionProvider, SpeechEngine } from "./speech-engine.ts";

/** The values of `ASR_ENGINE`. */
export type EngineChoice = Env["ASR_ENGINE"];

export interface LoadSpeechEngineOptions {
  /** `ASR_ENGINE`. auto: sherpa-onnx when a verified model is installed, else pocketsphinx. */
  engine: EngineChoice;
  /** `ASR_MODEL_DIR`: where models:download installs sherpa-onnx models. */
  modelDir: string;
  /** Installed sherpa-onnx model to use; default: the first installed in manifest order. */
  model?: string;
  provider?: ExecutionProvider;
  numThreads?: number;
  pocketsphinx?: Omit<PocketsphinxEngineOptions, "logger">;
  logger: Logger;
  signal?: AbortSignal;
}

/** Measured on real read English speech (not synthetic voices, on which it does far better). */
export const POCKETSPHINX_ACCURACY_NOTE =
  "speech recognition runs the pocketsphinx fallback: English only, and its accuracy on real speech is low " +
  "(word error rate 0.27-0.31 measured on real read English speech). For accurate captions install a neural model " +
  "with `npm run models:download` and restart";

/**
 * Picks and loads the worker's speech engine once at start-up, and logs which one it is; the
 * fallback says plainly what it costs. The VAD model every engine is fed through is checked first.
 */
export async function loadSpeechEngine(options: LoadSpeechEngineOptions): Promise<SpeechEngine> {
  const { logger } = options;
  await verifySileroVad();
  const engine = await pick(options);
  logger.info(
    { engine: engine.name, model: engine.model, languages: engine.languages, detects_language: engine.detectsLanguage },
    "speech engine ready",
  );
  if (engine.name === "pocketsphinx") logger.warn({ engine: engine.name, model_dir: options.modelDir }, POCKETSPHINX_ACCURACY_NOTE);
  return engine;
}

async function pick(options: LoadSpeechEngineOptions): Promise<SpeechEngine> {
  const { logger } = options;
  const pocketsphinx = () => createPocketsphinxEngine({ ...options.pocketsphinx, logger });
  switch (options.engine) {
    case "pocketsphinx":
      return pocketsphinx();
    case "sherpa-onnx": {
      const engine = await loadSherpaEngine(sherpaOptions(options));
      if (!engine) {
        throw new Error(`ASR_ENGINE=sherpa-onnx but no model is installed in ${options.modelDir}; run npm run models:download`);
      }
      return engine;
    }
    case "auto": {
      try {
        const engine = await loadSherpaEngine(sherpaOptions(options));
        if (engine) return engine;
      } catch (error) {
        if (!(error instanceof ModelVerificationError)) throw error;
        logger.error({ err: error, model_dir: options.modelDir }, "installed sherpa-onnx model failed verification: using pocketsphinx");
      }
      return pocketsphinx();
    }
  }
}

function sherpaOptions(options: LoadSpeechEngineOptions): Parameters<typeof loadSherpaEngine>[0] {
  const { modelDir, model, provider, numThreads, logger, signal } = options;
  return { modelDir, model, provider, numThreads, logger, signal };
}
