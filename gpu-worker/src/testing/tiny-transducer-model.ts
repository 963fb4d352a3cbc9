/**
 * Test helper: a tiny, hand-weighted NeMo TDT transducer (encoder, prediction network, joiner) laid
 * out like sherpa-onnx's export of Parakeet TDT: the same file names, tensor names and shapes, the
 * metadata sherpa-onnx reads (vocabulary size without blank, normaliser, subsampling, feature
 * dimension, prediction-network layers and size, the "tdt" url), `<blk>` last in tokens.txt and
 * five duration logits after the token logits. Each piece fires on a pure tone in one mel band and
 * says how many encoder frames (80 ms each) it covers.
 */
import type { FileRole, InstalledModel, ModelFile } from "../asr/sherpa/model-manifest.ts";
import { FLOAT, INT32, INT64, writeOnnx, writeTokens } from "./onnx-graph.ts";
import { installDescribed, type ModelDescription } from "./tiny-model-install.ts";

/** Feature bins of Parakeet TDT 0.6B v3 (its `feat_dim`): the worker's 80 must give way to it. */
export const TDT_MEL_BINS = 128;
/** Feature frames (10 ms) per encoder frame, as in FastConformer. */
export const TDT_SUBSAMPLING = 8;
/** The TDT durations 0 … 4 encoder frames. */
const DURATIONS = 5;
const PRED_LAYERS = 2;

export interface TinyTransducerToken {
  /** As in tokens.txt, e.g. "▁hel" (sentencepiece word start) or "lo". */
  piece: string;
  /** Mel bin (of 128) whose peak makes this piece fire. */
  bin: number;
  /** Encoder frames the joiner says this piece covers (0 … 4); the decoder then skips that many. */
  duration: number;
  /**
   * Added to the piece's logit. Two pieces on one bin fire together and the one with the higher
   * offset wins by exactly the difference: a near-tie that hotwords can tip.
   */
  offset?: number;
}

export interface TinyTransducerOptions {
  /** How far (nepers of log-mel) the bin must stand above its neighbours before a piece fires (default 6). */
  threshold?: number;
  /** Neighbour distance in mel bins for the peak test (default 3). */
  spread?: number;
}

const PARAKEET_FILES: readonly ModelFile[] = [
  { role: "encoder", path: "encoder.int8.onnx" },
  { role: "decoder", path: "decoder.int8.onnx" },
  { role: "joiner", path: "joiner.int8.onnx" },
  { role: "tokens", path: "tokens.txt" },
];

/** Logit per nepers of detector output: a piece that fires at all wins outright. */
const GAIN = 100;
/** What a piece's logit starts from: with nothing firing blank wins by e^20, as in a trained model. */
const SILENT = -20;
/** Taken off the pieces of the last emitted piece's bin: a held tone emits once. */
const PENALTY = 1000;

/**
 * Writes the three graphs and tokens.txt where `path` places each role:
 * - encoder: per feature frame and bin c, ReLU(x[c] − (x[c−s] + x[c+s]) / 2 − threshold), max-pooled
 *   over 8 frames: (N, 128, T) → (N, bins, T/8);
 * - decoder: one-hot of the last emitted piece (blank at the start), with the two (layers, N, hidden)
 *   LSTM states sherpa-onnx feeds back;
 * - joiner: a piece's logit is −20 (blank's is 0) plus 100 × its bin's detector, less 1000 when the
 *   last piece emitted was on the same bin (so a held tone emits once); the duration logits follow the
 *   firing piece's duration, else 1 frame.
 */
export async function writeTinyTransducerModel(
  path: (role: FileRole) => string,
  tokens: readonly TinyTransducerToken[],
  options: TinyTransducerOptions = {},
): Promise<void> {
  const threshold = options.threshold ?? 6;
  const spread = options.spread ?? 3;
  const bins = [...new Set(tokens.map((t) => t.bin))];
  const channels = bins.length;
  const pieces = tokens.length;
  const vocab = pieces + 1; // blank last
  const width = vocab + DURATIONS;
  const hidden = vocab;

  const detector = new Float32Array(TDT_MEL_BINS * channels);
  bins.forEach((bin, ch) => {
    if (bin - spread < 0 || bin + spread >= TDT_MEL_BINS) throw new Error(`mel bin ${bin} too close to the edge`);
    detector[bin * channels + ch] = 1;
    detector[(bin - spread) * channels + ch] = -0.5;
    detector[(bin + spread) * channels + ch] = -0.5;
  });

  const fromEncoder = new Float32Array(channels * width);
  const fromDecoder = new Float32Array(hidden * width);
  const bias = new Float32Array(width);
  bias[vocab + 1] = 1; // with nothing firing, move one frame on
  tokens.forEach(({ bin, duration, offset = 0 }, k) => {
    if (!Number.isInteger(duration) || duration < 0 || duration >= DURATIONS) throw new Error(`duration ${duration} is not 0 … ${DURATIONS - 1}`);
    const ch = bins.indexOf(bin);
    fromEncoder[ch * width + k] = GAIN;
    fromEncoder[ch * width + vocab + duration] = GAIN;
    tokens.forEach((other, j) => {
      if (other.bin === bin) fromDecoder[j * width + k] = -PENALTY;
    });
    bias[k] = SILENT + offset;
  });
  const oneHot = new Float32Array(vocab * hidden);
  for (let k = 0; k < vocab; k++) oneHot[k * hidden + k] = 1;

  await writeOnnx(path("encoder"), {
    name: "tiny_tdt_encoder",
    // As sherpa-onnx's export script writes them for Parakeet TDT 0.6B v3.
    metadata: {
      vocab_size: String(pieces),
      normalize_type: "",
      subsampling_factor: String(TDT_SUBSAMPLING),
      pred_rnn_layers: String(PRED_LAYERS),
      pred_hidden: String(hidden),
      feat_dim: String(TDT_MEL_BINS),
      url: "https://huggingface.co/nvidia/parakeet-tdt-0.6b-v3",
      model_type: "EncDecRNNTBPEModel",
      comment: "tiny hand-weighted tone model built by the caption-service tests",
    },
    inputs: [
      { name: "audio_signal", type: FLOAT, dims: ["N", TDT_MEL_BINS, "T"] },
      { name: "length", type: INT64, dims: ["N"] },
    ],
    outputs: [
      { name: "outputs", type: FLOAT, dims: ["N", channels, "T_out"] },
      { name: "encoded_lengths", type: INT64, dims: ["N"] },
    ],
    initializers: [
      { name: "detector", dims: [TDT_MEL_BINS, channels], float: detector },
      { name: "threshold", dims: [1], float: [threshold] },
      { name: "subsampling", dims: [1], int64: [TDT_SUBSAMPLING] },
    ],
    nodes: [
      { op: "Transpose", inputs: ["audio_signal"], outputs: ["frames"], attributes: { perm: [0, 2, 1] } },
      { op: "MatMul", inputs: ["frames", "detector"], outputs: ["peaks"] },
      { op: "Sub", inputs: ["peaks", "threshold"], outputs: ["above"] },
      { op: "Relu", inputs: ["above"], outputs: ["firing"] },
      { op: "Transpose", inputs: ["firing"], outputs: ["channels_first"], attributes: { perm: [0, 2, 1] } },
      { op: "MaxPool", inputs: ["channels_first"], outputs: ["outputs"], attributes: { kernel_shape: [TDT_SUBSAMPLING], strides: [TDT_SUBSAMPLING] } },
      { op: "Div", inputs: ["length", "subsampling"], outputs: ["encoded_lengths"] },
    ],
  });

  await writeOnnx(path("decoder"), {
    name: "tiny_tdt_decoder",
    metadata: {},
    inputs: [
      { name: "targets", type: INT32, dims: ["N", 1] },
      { name: "target_length", type: INT32, dims: ["N"] },
      { name: "states.1", type: FLOAT, dims: [PRED_LAYERS, "N", hidden] },
      { name: "onnx::Slice_3", type: FLOAT, dims: [PRED_LAYERS, "N", hidden] },
    ],
    outputs: [
      { name: "outputs", type: FLOAT, dims: ["N", hidden, 1] },
      { name: "prednet_lengths", type: INT32, dims: ["N"] },
      { name: "states", type: FLOAT, dims: [PRED_LAYERS, "N", hidden] },
      { name: "162", type: FLOAT, dims: [PRED_LAYERS, "N", hidden] },
    ],
    initializers: [
      { name: "embedding", dims: [vocab, hidden], float: oneHot },
      { name: "zero", dims: [1], float: [0] },
    ],
    nodes: [
      { op: "Gather", inputs: ["embedding", "targets"], outputs: ["embedded"], attributes: { axis: 0 } },
      { op: "Transpose", inputs: ["embedded"], outputs: ["outputs"], attributes: { perm: [0, 2, 1] } },
      { op: "Identity", inputs: ["target_length"], outputs: ["prednet_lengths"] },
      // The new hidden state holds the last piece in every layer; the cell state keeps the previous hidden one.
      { op: "Transpose", inputs: ["embedded"], outputs: ["embedded_lnh"], attributes: { perm: [1, 0, 2] } },
      { op: "Mul", inputs: ["states.1", "zero"], outputs: ["cleared"] },
      { op: "Add", inputs: ["cleared", "embedded_lnh"], outputs: ["states"] },
      { op: "Identity", inputs: ["states.1"], outputs: ["162"] },
    ],
  });

  await writeOnnx(path("joiner"), {
    name: "tiny_tdt_joiner",
    metadata: {},
    inputs: [
      { name: "encoder_outputs", type: FLOAT, dims: ["N", channels, 1] },
      { name: "decoder_outputs", type: FLOAT, dims: ["N", hidden, 1] },
    ],
    outputs: [{ name: "outputs", type: FLOAT, dims: ["N", 1, 1, width] }],
    initializers: [
      { name: "from_encoder", dims: [channels, width], float: fromEncoder },
      { name: "from_decoder", dims: [hidden, width], float: fromDecoder },
      { name: "bias", dims: [width], float: bias },
      { name: "axis_1", dims: [1], int64: [1] },
    ],
    nodes: [
      { op: "Transpose", inputs: ["encoder_outputs"], outputs: ["enc"], attributes: { perm: [0, 2, 1] } },
      { op: "Transpose", inputs: ["decoder_outputs"], outputs: ["dec"], attributes: { perm: [0, 2, 1] } },
      { op: "MatMul", inputs: ["enc", "from_encoder"], outputs: ["enc_logits"] },
      { op: "MatMul", inputs: ["dec", "from_decoder"], outputs: ["dec_logits"] },
      { op: "Add", inputs: ["enc_logits", "dec_logits"], outputs: ["sum"] },
      { op: "Add", inputs: ["sum", "bias"], outputs: ["logits"] },
      { op: "Unsqueeze", inputs: ["logits", "axis_1"], outputs: ["outputs"] },
    ],
  });

  await writeTokens(path("tokens"), [...tokens.map(({ piece }) => piece), "<blk>"]);
}

/**
 * Writes the tiny transducer into `dir` and records it as installed, as `models:download` would;
 * `as` (e.g. the manifest's Parakeet entry) names the model and places its files.
 */
export function installTinyTransducerModel(
  dir: string,
  tokens: readonly TinyTransducerToken[],
  options: TinyTransducerOptions & { as?: ModelDescription } = {},
): Promise<InstalledModel> {
  const description: ModelDescription = options.as ?? {
    name: "tiny-tone-tdt",
    family: "nemo-transducer",
    languages: ["en"],
    detectsLanguage: true,
    tokenTimestamps: true,
    files: [...PARAKEET_FILES],
  };
  return installDescribed(dir, description, (path) => writeTinyTransducerModel(path, tokens, options));
}
