/**
 * Test helper: a tiny, hand-weighted SenseVoice model laid out like sherpa-onnx's export
 * (model.int8.onnx + tokens.txt): inputs x (N, T, 560: 7 stacked 80-bin fbank frames), x_length,
 * language and text_norm (indices into the query table, from the metadata's lang_* and
 * with_itn/without_itn), output (N, 4 + T, vocabulary) CTC logits whose first four frames are the
 * language, emotion, event and text-normalisation tags. It reads the language and text_norm inputs:
 * a language hint becomes the language tag; "auto" takes the tag from whichever language tone is
 * heard (<|nospeech|> without one); with text normalisation a number piece is written in digits.
 */
import type { FileRole, InstalledModel } from "../asr/sherpa/model-manifest.ts";
import { FLOAT, INT32, writeOnnx, writeTokens } from "./onnx-graph.ts";
import { installDescribed, type ModelDescription } from "./tiny-model-install.ts";

/** Fbank bins of SenseVoice's front end (Kaldi mel, 20 Hz … 8 kHz) and its low-frame-rate stacking. */
export const SENSE_VOICE_MEL_BINS = 80;
const LFR_WINDOW = 7;
const LFR_SHIFT = 6;
const FEATURES = SENSE_VOICE_MEL_BINS * LFR_WINDOW;
/** Query indices as in the released model's metadata. */
const QUERY = { auto: 0, zh: 3, en: 4, yue: 7, ja: 11, ko: 12, withItn: 14, withoutItn: 15 } as const;
const QUERIES = 16;
const LANGUAGES = ["zh", "en", "yue", "ja", "ko"] as const;
export type SenseVoiceLanguage = (typeof LANGUAGES)[number];
/** Tags in the order of the released tokens.txt's first lines (blank is <unk>, id 0). */
const TAGS = ["<unk>", "<s>", "</s>", ...LANGUAGES.map((l) => `<|${l}|>`), "<|nospeech|>", "<|NEUTRAL|>", "<|Speech|>", "<|withitn|>", "<|woitn|>"];
const tagId = (tag: string) => TAGS.indexOf(tag);

export interface TinySenseVoiceToken {
  piece: string;
  /** Fbank bin (of 80) whose peak makes this piece fire. */
  bin: number;
  /** Which text normalisation writes this piece (the other one's twin shares its bin); default both. */
  textNorm?: "with" | "without";
}

export interface TinySenseVoiceOptions {
  /** Bins whose tone makes "auto" detect that language. */
  languageTones?: Partial<Record<SenseVoiceLanguage, number>>;
  /** nepers of log-fbank a bin must stand above its ±3 neighbours (default 6). */
  threshold?: number;
}

const GAIN = 100;
const SILENT = -20;
const SPREAD = 3;

/** Writes the model and tokens.txt where `path` places each role. */
export async function writeTinySenseVoiceModel(
  path: (role: FileRole) => string,
  tokens: readonly TinySenseVoiceToken[],
  options: TinySenseVoiceOptions = {},
): Promise<void> {
  const threshold = options.threshold ?? 6;
  const languageTones = Object.entries(options.languageTones ?? {}) as [SenseVoiceLanguage, number][];
  const bins = [...new Set([...tokens.map((t) => t.bin), ...languageTones.map(([, bin]) => bin)])];
  const channels = bins.length;
  const vocab = TAGS.length + tokens.length;
  const pieceId = (k: number) => TAGS.length + k;

  // The middle of the 7 stacked frames (sherpa-onnx's CMVN is the identity here: neg_mean 0, inv_stddev 1).
  const detector = new Float32Array(FEATURES * channels);
  const middle = Math.floor(LFR_WINDOW / 2) * SENSE_VOICE_MEL_BINS;
  bins.forEach((bin, ch) => {
    if (bin - SPREAD < 0 || bin + SPREAD >= SENSE_VOICE_MEL_BINS) throw new Error(`fbank bin ${bin} too close to the edge`);
    detector[(middle + bin) * channels + ch] = 1;
    detector[(middle + bin - SPREAD) * channels + ch] = -0.5;
    detector[(middle + bin + SPREAD) * channels + ch] = -0.5;
  });
  const toPieces = new Float32Array(channels * vocab);
  const pieceBias = new Float32Array(vocab).fill(SILENT);
  pieceBias[0] = 0;
  const byTextNorm = new Float32Array(QUERIES * vocab);
  tokens.forEach(({ bin, textNorm }, k) => {
    toPieces[bins.indexOf(bin) * vocab + pieceId(k)] = GAIN;
    if (textNorm === undefined) return;
    const [chosen, other] = textNorm === "with" ? [QUERY.withItn, QUERY.withoutItn] : [QUERY.withoutItn, QUERY.withItn];
    byTextNorm[chosen * vocab + pieceId(k)] = 1;
    byTextNorm[other * vocab + pieceId(k)] = -1;
  });

  // Prompt frames: language (hint, or detected under auto), emotion, event, text normalisation.
  const languageRow = new Float32Array(QUERIES * vocab).fill(SILENT);
  const row = (table: Float32Array, query: number, tag: string, value = 0) => (table[query * vocab + tagId(tag)] = value);
  row(languageRow, QUERY.auto, "<|nospeech|>");
  for (const language of LANGUAGES) row(languageRow, QUERY[language], `<|${language}|>`);
  const heard = new Float32Array(channels * vocab);
  for (const [language, bin] of languageTones) heard[bins.indexOf(bin) * vocab + tagId(`<|${language}|>`)] = GAIN;
  const autoOnly = new Float32Array(QUERIES);
  autoOnly[QUERY.auto] = 1;
  const constant = (tag: string) => new Float32Array(QUERIES * vocab).fill(SILENT).map((v, i) => (i % vocab === tagId(tag) ? 0 : v));
  const textNormTag = new Float32Array(QUERIES * vocab).fill(SILENT);
  row(textNormTag, QUERY.withItn, "<|withitn|>");
  row(textNormTag, QUERY.withoutItn, "<|woitn|>");

  const metadata: Record<string, string> = {
    model_type: "sense_voice_ctc",
    comment: "tiny hand-weighted tone model built by the caption-service tests",
    vocab_size: String(vocab),
    blank_id: "0",
    lfr_window_size: String(LFR_WINDOW),
    lfr_window_shift: String(LFR_SHIFT),
    normalize_samples: "0",
    with_itn: String(QUERY.withItn),
    without_itn: String(QUERY.withoutItn),
    ...Object.fromEntries((["auto", ...LANGUAGES] as const).map((l) => [`lang_${l}`, String(QUERY[l])])),
    neg_mean: new Array(FEATURES).fill("0").join(","),
    inv_stddev: new Array(FEATURES).fill("1").join(","),
  };
  const gathered = (table: string, index: string, out: string) => [
    { op: "Gather", inputs: [table, index], outputs: [`${out}_2d`], attributes: { axis: 0 } },
    { op: "Unsqueeze", inputs: [`${out}_2d`, "axis_1"], outputs: [out] },
  ];
  await writeOnnx(path("model"), {
    name: "tiny_sense_voice",
    metadata,
    inputs: [
      { name: "x", type: FLOAT, dims: ["N", "T", FEATURES] },
      { name: "x_length", type: INT32, dims: ["N"] },
      { name: "language", type: INT32, dims: ["N"] },
      { name: "text_norm", type: INT32, dims: ["N"] },
    ],
    outputs: [{ name: "logits", type: FLOAT, dims: ["N", "T_out", vocab] }],
    initializers: [
      { name: "detector", dims: [FEATURES, channels], float: detector },
      { name: "threshold", dims: [1], float: [threshold] },
      { name: "to_pieces", dims: [channels, vocab], float: toPieces },
      { name: "piece_bias", dims: [vocab], float: pieceBias },
      { name: "by_text_norm", dims: [QUERIES, vocab], float: byTextNorm },
      { name: "language_row", dims: [QUERIES, vocab], float: languageRow },
      { name: "heard", dims: [channels, vocab], float: heard },
      { name: "auto_only", dims: [QUERIES, 1], float: autoOnly },
      { name: "emotion_row", dims: [QUERIES, vocab], float: constant("<|NEUTRAL|>") },
      { name: "event_row", dims: [QUERIES, vocab], float: constant("<|Speech|>") },
      { name: "text_norm_row", dims: [QUERIES, vocab], float: textNormTag },
      { name: "axis_1", dims: [1], int64: [1] },
      { name: "zero", dims: [1], float: [0] },
    ],
    nodes: [
      // Text frames.
      { op: "MatMul", inputs: ["x", "detector"], outputs: ["peaks"] },
      { op: "Sub", inputs: ["peaks", "threshold"], outputs: ["above"] },
      { op: "Relu", inputs: ["above"], outputs: ["firing"] },
      { op: "MatMul", inputs: ["firing", "to_pieces"], outputs: ["piece_scores"] },
      { op: "Add", inputs: ["piece_scores", "piece_bias"], outputs: ["plain"] },
      ...gathered("by_text_norm", "text_norm", "normalised"),
      { op: "Add", inputs: ["plain", "normalised"], outputs: ["text"] },
      // Language: the hint's tag, plus under auto the tag of the language tone heard loudest.
      ...gathered("language_row", "language", "hinted"),
      { op: "ReduceMax", inputs: ["firing"], outputs: ["loudest"], attributes: { axes: [1], keepdims: 1 } },
      { op: "MatMul", inputs: ["loudest", "heard"], outputs: ["detected"] },
      ...gathered("auto_only", "language", "is_auto"),
      { op: "Mul", inputs: ["detected", "is_auto"], outputs: ["detected_if_auto"] },
      // x_length is read, as by the real model, though every frame here stands alone.
      { op: "Cast", inputs: ["x_length"], outputs: ["length_f"], attributes: { to: FLOAT } },
      { op: "Mul", inputs: ["length_f", "zero"], outputs: ["no_length"] },
      { op: "Unsqueeze", inputs: ["no_length", "axis_1"], outputs: ["no_length_2d"] },
      { op: "Unsqueeze", inputs: ["no_length_2d", "axis_1"], outputs: ["no_length_3d"] },
      { op: "Add", inputs: ["hinted", "detected_if_auto"], outputs: ["language_sum"] },
      { op: "Add", inputs: ["language_sum", "no_length_3d"], outputs: ["language_frame"] },
      ...gathered("emotion_row", "text_norm", "emotion_frame"),
      ...gathered("event_row", "text_norm", "event_frame"),
      ...gathered("text_norm_row", "text_norm", "text_norm_frame"),
      { op: "Concat", inputs: ["language_frame", "emotion_frame", "event_frame", "text_norm_frame", "text"], outputs: ["logits"], attributes: { axis: 1 } },
    ],
  });
  await writeTokens(path("tokens"), [...TAGS, ...tokens.map((t) => t.piece)]);
}

/** Writes the tiny SenseVoice into `dir` and records it as installed; `as` (a manifest entry) names it and places its files. */
export function installTinySenseVoiceModel(
  dir: string,
  tokens: readonly TinySenseVoiceToken[],
  options: TinySenseVoiceOptions & { as?: ModelDescription } = {},
): Promise<InstalledModel> {
  const description: ModelDescription = options.as ?? {
    name: "tiny-tone-sense-voice",
    family: "sense-voice",
    languages: [...LANGUAGES],
    detectsLanguage: true,
    tokenTimestamps: true,
    files: [
      { role: "model", path: "model.int8.onnx" },
      { role: "tokens", path: "tokens.txt" },
    ],
  };
  return installDescribed(dir, description, (path) => writeTinySenseVoiceModel(path, tokens, options));
}
