/**
 * Test helper: writes small ONNX graphs by hand (protobufjs over the slice of onnx.proto they need),
 * so the tests can build recognizers whose weights they choose. No trained model can be fetched on
 * our machines; these let sherpa-onnx load and run graphs shaped like the real exports.
 */
import { writeFile } from "node:fs/promises";
import protobuf from "protobufjs";

// The subset of onnx.proto (field numbers as upstream) that a small float graph needs.
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message StringStringEntryProto { string key = 1; string value = 2; }
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message TensorProto {
  repeated int64 dims = 1; int32 data_type = 2; repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true]; repeated int64 int64_data = 7 [packed = true]; string name = 8;
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

const ModelProto = protobuf.parse(ONNX_PROTO).root.lookupType("onnx.ModelProto");

/** TensorProto.DataType values used here. */
export const FLOAT = 1;
export const INT32 = 6;
export const INT64 = 7;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

/** A graph input or output: name, element type, dims (numbers are fixed, strings symbolic). */
export interface GraphValue {
  name: string;
  type: typeof FLOAT | typeof INT32 | typeof INT64;
  dims: (number | string)[];
}

export interface GraphNode {
  op: string;
  inputs: string[];
  outputs: string[];
  /** Integer or integer-list attributes (axis, perm, kernel_shape …). */
  attributes?: Record<string, number | number[]>;
}

export interface GraphInitializer {
  name: string;
  dims: number[];
  /** Float32 weights, or int64/int32 constants. */
  float?: ArrayLike<number>;
  int64?: number[];
  int32?: number[];
}

export interface OnnxGraph {
  name: string;
  inputs: GraphValue[];
  outputs: GraphValue[];
  initializers: GraphInitializer[];
  nodes: GraphNode[];
  /** Model metadata (what sherpa-onnx reads with its READ_META_DATA macros). */
  metadata: Record<string, string>;
}

const valueInfo = ({ name, type, dims }: GraphValue) => ({
  name,
  type: { tensorType: { elemType: type, shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) } } },
});

function initializer({ name, dims, float, int64, int32 }: GraphInitializer) {
  if (float) return { name, dims, dataType: FLOAT, floatData: Array.from(float) };
  if (int64) return { name, dims, dataType: INT64, int64Data: int64 };
  return { name, dims, dataType: INT32, int32Data: int32 ?? [] };
}

function node({ op, inputs, outputs, attributes = {} }: GraphNode, index: number) {
  return {
    name: `${op.toLowerCase()}_${index}`,
    opType: op,
    input: inputs,
    output: outputs,
    attribute: Object.entries(attributes).map(([name, value]) =>
      Array.isArray(value) ? { name, type: ATTRIBUTE_INTS, ints: value } : { name, type: ATTRIBUTE_INT, i: value },
    ),
  };
}

/** The serialised model (opset 13, IR 8). */
export function encodeOnnx(graph: OnnxGraph): Uint8Array {
  const model = ModelProto.create({
    irVersion: 8,
    producerName: "caption-service test model",
    opsetImport: [{ domain: "", version: 13 }],
    metadataProps: Object.entries(graph.metadata).map(([key, value]) => ({ key, value })),
    graph: {
      name: graph.name,
      input: graph.inputs.map(valueInfo),
      output: graph.outputs.map(valueInfo),
      initializer: graph.initializers.map(initializer),
      node: graph.nodes.map(node),
    },
  });
  return ModelProto.encode(model).finish();
}

export async function writeOnnx(path: string, graph: OnnxGraph): Promise<void> {
  await writeFile(path, encodeOnnx(graph));
}

/** tokens.txt as sherpa-onnx reads it: one `piece id` per line. */
export async function writeTokens(path: string, pieces: readonly string[]): Promise<void> {
  await writeFile(path, `${pieces.map((piece, id) => `${piece} ${id}`).join("\n")}\n`);
}
