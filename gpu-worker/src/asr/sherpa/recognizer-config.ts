import { SAMPLE_RATE, type ExecutionProvider } from "../speech-engine.ts";
import { resolveInside, type InstalledModelDir } from "./model-files.ts";
import type { FileRole, ModelFamily } from "./model-manifest.ts";
import type { OfflineRecognizerConfig } from "./sherpa-native.ts";

/** Families whose sherpa-onnx recognizer decodes with modified beam search and so takes hotwords. */
export const BIASING_FAMILIES: ReadonlySet<ModelFamily> = new Set(["nemo-transducer", "transducer"]);
/**
 * sherpa-onnx's default: added to a hotword piece's log-probability at each step. The test model
 * shows it tipping a near-tie of one nat; how far it bends a trained model is for the operator to judge.
 */
export const HOTWORDS_SCORE = 1.5;
/** sherpa-onnx's default beam. */
const MAX_ACTIVE_PATHS = 4;

export interface RecognizerSettings {
  /** SenseVoice's language input ("auto" detects); the other families ignore it. */
  language: string;
  numThreads: number;
  provider: ExecutionProvider;
  /** Decode with modified beam search so streams can carry hotwords, spelt with this bpe.vocab. */
  hotwords?: { bpeVocab: string };
}

/** The sherpa-onnx recognizer configuration for an installed model, by its family. */
export function recognizerConfig(model: InstalledModelDir, settings: RecognizerSettings): OfflineRecognizerConfig {
  const { record, dir } = model;
  const { language, numThreads, provider, hotwords } = settings;
  const file = (role: FileRole) => {
    const entry = record.files.find((f) => f.role === role);
    if (!entry) throw new Error(`model ${record.name} has no ${role} file`);
    return resolveInside(dir, entry.path);
  };
  const base = { tokens: file("tokens"), numThreads, provider, debug: 0 as const };
  const transducer = () => ({ encoder: file("encoder"), decoder: file("decoder"), joiner: file("joiner") });
  const modelConfig = ((): OfflineRecognizerConfig["modelConfig"] => {
    switch (record.family) {
      case "nemo-ctc":
        return { ...base, nemoCtc: { model: file("model") } };
      case "nemo-transducer":
        return { ...base, modelType: "nemo_transducer", transducer: transducer() };
      case "transducer":
        return { ...base, modelType: "transducer", transducer: transducer() };
      case "sense-voice":
        return { ...base, senseVoice: { model: file("model"), language, useInverseTextNormalization: 1 } };
    }
  })();
  // The feature size is the front end's default: NeMo models that need another (128 for Parakeet TDT v3) say so in their metadata.
  const featConfig = { sampleRate: SAMPLE_RATE, featureDim: 80 };
  if (!hotwords) return { featConfig, modelConfig, decodingMethod: "greedy_search" };
  if (!BIASING_FAMILIES.has(record.family)) throw new Error(`model ${record.name} (${record.family}) cannot decode with hotwords`);
  return {
    featConfig,
    modelConfig: { ...modelConfig, modelingUnit: "bpe", bpeVocab: hotwords.bpeVocab },
    decodingMethod: "modified_beam_search",
    maxActivePaths: MAX_ACTIVE_PATHS,
    hotwordsScore: HOTWORDS_SCORE,
  };
}
