/**
 * Test helper: writes tiny, hand-weighted ONNX models that sherpa-onnx loads as NeMo CTC models
 * (`model_type` EncDecCTCModelBPE). No trained recognizer can be fetched on our machines, so the
 * tests build one whose output is predictable: each vocabulary piece fires on a pure tone in one
 * mel band, blank wins everywhere else.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import protobuf from "protobufjs";
import { writeInstallRecord } from "../asr/sherpa/model-files.ts";
import type { InstalledModel } from "../asr/sherpa/model-manifest.ts";

// The subset of onnx.proto (field numbers as upstream) that a small float graph needs.
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message StringStringEntryProto { string key = 1; string value = 2; }
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message TensorProto {
  repeated int64 dims = 1; int32 data_type = 2; repeated float float_data = 4 [packed = true];
  repeated int64 int64_data = 7 [packed = true]; string name = 8;
}
message AttributeProto {
  string name = 1; float f = 2; int64 i = 3; bytes s = 4; repeated int64 ints = 8 [packed = true]; int32 type = 20;
}
message NodeProto {
  repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
  repeated AttributeProto attribute = 5;
}
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message ModelProto {
  int64 ir_version = 1; repeated OperatorSetIdProto opset_import = 8; string producer_name = 2;
  GraphProto graph = 7; repeated StringStringEntryProto metadata_props = 14;
}
`;

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INTS = 7;
const ATTRIBUTE_INT = 2;
const ModelProto = protobuf.parse(ONNX_PROTO).root.lookupType("onnx.ModelProto");

/** Mel bins of sherpa-onnx's NeMo front end (librosa/Slaney mel, 0–8 kHz). */
export const MEL_BINS = 80;

const LOG_STEP = Math.log(6.4) / 27;
const slaneyMel = (hz: number) => (hz < 1000 ? (3 * hz) / 200 : 15 + Math.log(hz / 1000) / LOG_STEP);
const slaneyHz = (mel: number) => (mel < 15 ? (200 * mel) / 3 : 1000 * Math.exp((mel - 15) * LOG_STEP));

/** Centre frequency of mel filter `bin` (librosa/Slaney scale, 80 filters over 0–8 kHz). */
export function melBinCentreHz(bin: number): number {
  return slaneyHz(((bin + 1) * slaneyMel(8000)) / (MEL_BINS + 1));
}

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

  const tensorType = (elemType: number, dims: (number | string)[]) => ({
    tensorType: {
      elemType,
      shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
    },
  });
  const model = ModelProto.create({
    irVersion: 8,
    producerName: "caption-service tiny-onnx-model",
    opsetImport: [{ domain: "", version: 13 }],
    metadataProps: Object.entries({
      model_type: "EncDecCTCModelBPE",
      vocab_size: String(vocab),
      subsampling_factor: "1",
      normalize_type: "",
      is_giga_am: "0",
    }).map(([key, value]) => ({ key, value })),
    graph: {
      name: "tiny_ctc",
      input: [
        { name: "audio_signal", type: tensorType(FLOAT, ["N", MEL_BINS, "T"]) },
        { name: "length", type: tensorType(INT64, ["N"]) },
      ],
      output: [{ name: "logprobs", type: tensorType(FLOAT, ["N", "T", vocab]) }],
      initializer: [
        { name: "W", dataType: FLOAT, dims: [MEL_BINS, vocab], floatData: Array.from(weights) },
        { name: "b", dataType: FLOAT, dims: [vocab], floatData: Array.from(bias) },
      ],
      node: [
        {
          name: "frames_last",
          opType: "Transpose",
          input: ["audio_signal"],
          output: ["frames"],
          attribute: [{ name: "perm", type: ATTRIBUTE_INTS, ints: [0, 2, 1] }],
        },
        { name: "project", opType: "MatMul", input: ["frames", "W"], output: ["scores"] },
        { name: "offset", opType: "Add", input: ["scores", "b"], output: ["logits"] },
        {
          name: "normalise",
          opType: "LogSoftmax",
          input: ["logits"],
          output: ["logprobs"],
          attribute: [{ name: "axis", type: ATTRIBUTE_INT, i: -1 }],
        },
      ],
    },
  });
  await writeFile(join(dir, "model.onnx"), ModelProto.encode(model).finish());
  const lines = ["<blk> 0", ...tokens.map(({ piece }, k) => `${piece} ${k + 1}`)];
  await writeFile(join(dir, "tokens.txt"), `${lines.join("\n")}\n`);
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

/** 16 kHz samples with a sine at `hz` over each [start, end) second range (amplitude 0.3). */
export function toneTrack(seconds: number, tones: readonly { hz: number; start: number; end: number }[], amplitude = 0.3): Float32Array {
  const rate = 16000;
  const samples = new Float32Array(Math.round(seconds * rate));
  for (const { hz, start, end } of tones) {
    for (let i = Math.round(start * rate); i < Math.min(Math.round(end * rate), samples.length); i++) {
      samples[i] = (samples[i] ?? 0) + amplitude * Math.sin((2 * Math.PI * hz * i) / rate);
    }
  }
  return samples;
}
