/**
 * Test helper: writes tiny, hand-weighted ONNX models that sherpa-onnx loads as NeMo CTC models
 * (`model_type` EncDecCTCModelBPE). No trained recognizer can be fetched on our machines, so the
 * tests build one whose output is predictable: each vocabulary piece fires on a pure tone in one
 * mel band, blank wins everywhere else.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeInstallRecord } from "../asr/sherpa/model-files.ts";
import type { InstalledModel } from "../asr/sherpa/model-manifest.ts";
import { FLOAT, INT64, writeOnnx, writeTokens } from "./onnx-graph.ts";

/** Mel bins of sherpa-onnx's NeMo front end (librosa/Slaney mel, 0–8 kHz). */
export const MEL_BINS = 80;

export interface TinyCtcToken {
  /** The piece as written in tokens.txt, e.g. "▁hel" (sentencepiece word start) or "lo". */
  piece: string;
  /** The mel bin whose peak makes this piece win. */
  bin: number;
}

export interface TinyCtcModelOptions {
  /**
   * How far (in nepers of log-mel) the bin must stand above its neighbours before a piece beats
   * blank. 6 keeps flite speech silent while a 0.2-amplitude tone mixed into it still fires.
   */
  threshold?: number;
  /** Neighbour distance in mel bins for the peak test (default 3). */
  spread?: number;
}

/**
 * Writes `model.onnx` and `tokens.txt` into `dir`. Per frame the logits are, for piece k with bin c,
 * x[c] − (x[c−spread] + x[c+spread]) / 2, and `threshold` for blank: a linear map, so the graph is
 * Transpose → MatMul → Add → LogSoftmax on the (N, 80, T) features NeMo models take.
 */
export async function writeTinyCtcModel(dir: string, tokens: readonly TinyCtcToken[], options: TinyCtcModelOptions = {}): Promise<void> {
  const threshold = options.threshold ?? 6;
  const spread = options.spread ?? 3;
  const vocab = tokens.length + 1; // blank is id 0
  const weights = new Float32Array(MEL_BINS * vocab);
  const bias = new Float32Array(vocab);
  bias[0] = threshold;
  tokens.forEach(({ bin }, k) => {
    if (bin - spread < 0 || bin + spread >= MEL_BINS) throw new Error(`mel bin ${bin} too close to the edge`);
    const column = k + 1;
    weights[bin * vocab + column] = 1;
    weights[(bin - spread) * vocab + column] = -0.5;
    weights[(bin + spread) * vocab + column] = -0.5;
  });

  await writeOnnx(join(dir, "model.onnx"), {
    name: "tiny_ctc",
    metadata: { model_type: "EncDecCTCModelBPE", vocab_size: String(vocab), subsampling_factor: "1", normalize_type: "", is_giga_am: "0" },
    inputs: [
      { name: "audio_signal", type: FLOAT, dims: ["N", MEL_BINS, "T"] },
      { name: "length", type: INT64, dims: ["N"] },
    ],
    outputs: [{ name: "logprobs", type: FLOAT, dims: ["N", "T", vocab] }],
    initializers: [
      { name: "W", dims: [MEL_BINS, vocab], float: weights },
      { name: "b", dims: [vocab], float: bias },
    ],
    nodes: [
      { op: "Transpose", inputs: ["audio_signal"], outputs: ["frames"], attributes: { perm: [0, 2, 1] } },
      { op: "MatMul", inputs: ["frames", "W"], outputs: ["scores"] },
      { op: "Add", inputs: ["scores", "b"], outputs: ["logits"] },
      { op: "LogSoftmax", inputs: ["logits"], outputs: ["logprobs"], attributes: { axis: -1 } },
    ],
  });
  await writeTokens(join(dir, "tokens.txt"), ["<blk>", ...tokens.map(({ piece }) => piece)]);
}

/** Writes a tiny model into `dir` and records it as installed, as `models:download` would. */
export async function installTinyCtcModel(
  dir: string,
  tokens: readonly TinyCtcToken[],
  options: TinyCtcModelOptions & { name?: string; languages?: string[] } = {},
): Promise<InstalledModel> {
  await mkdir(dir, { recursive: true });
  await writeTinyCtcModel(dir, tokens, options);
  return writeInstallRecord(dir, {
    name: options.name ?? "tiny-tone-ctc",
    family: "nemo-ctc",
    languages: options.languages ?? ["en"],
    detectsLanguage: false,
    tokenTimestamps: true,
    files: [
      { role: "model", path: "model.onnx" },
      { role: "tokens", path: "tokens.txt" },
    ],
  });
}
