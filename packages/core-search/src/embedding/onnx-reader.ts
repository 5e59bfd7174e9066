/**
 * A minimal reader for the parts of an ONNX file (a protobuf ModelProto) that the
 * bundled static model needs: the graph's name, its nodes' op types and its
 * initializers stored as raw_data. Enough to take the weights out of the one
 * committed .onnx file without an ONNX runtime or a protobuf library; anything
 * else in the file is skipped by wire type. Field numbers from onnx/onnx.proto3.
 */
import { ToolSearchError } from '../errors.js';

export interface OnnxTensor {
  name: string;
  /** TensorProto.DataType: 1 FLOAT, 3 INT8, 7 INT64, ... */
  dataType: number;
  dims: number[];
  /** The tensor's little-endian raw_data (a view into the file's bytes). */
  raw: Uint8Array;
}

export interface OnnxGraphSummary {
  name: string;
  /** Node op types in graph order. */
  ops: string[];
  initializers: Map<string, OnnxTensor>;
}

export const ONNX_FLOAT = 1;
export const ONNX_INT8 = 3;

// ModelProto.graph = 7; GraphProto.node = 1, name = 2, initializer = 5; NodeProto.op_type = 4;
// TensorProto.dims = 1, data_type = 2, name = 8, raw_data = 9, data_location = 14.
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_NAME = 2;
const GRAPH_INITIALIZER = 5;
const NODE_OP_TYPE = 4;
const TENSOR_DIMS = 1;
const TENSOR_DATA_TYPE = 2;
const TENSOR_NAME = 8;
const TENSOR_RAW_DATA = 9;
const TENSOR_DATA_LOCATION = 14;

const decoder = new TextDecoder();

/** Reads the graph of an ONNX model; throws MODEL_LOAD_FAILED naming `where` on malformed bytes. */
export function readOnnxGraph(bytes: Uint8Array, where: string): OnnxGraphSummary {
  const fail = (why: string): never => {
    throw new ToolSearchError('MODEL_LOAD_FAILED', `${where} is not a readable ONNX model: ${why}`);
  };
  const summary: OnnxGraphSummary = { name: '', ops: [], initializers: new Map() };
  let sawGraph = false;
  for (const field of fields(bytes, 0, bytes.length, fail)) {
    if (field.number !== MODEL_GRAPH || field.bytes === undefined) continue;
    sawGraph = true;
    for (const g of fields(bytes, field.bytes[0], field.bytes[1], fail)) {
      if (g.bytes === undefined) continue;
      if (g.number === GRAPH_NAME) summary.name = text(bytes, g.bytes);
      else if (g.number === GRAPH_NODE) {
        for (const n of fields(bytes, g.bytes[0], g.bytes[1], fail)) {
          if (n.number === NODE_OP_TYPE && n.bytes) summary.ops.push(text(bytes, n.bytes));
        }
      } else if (g.number === GRAPH_INITIALIZER) {
        const tensor = readTensor(bytes, g.bytes, fail);
        summary.initializers.set(tensor.name, tensor);
      }
    }
  }
  if (!sawGraph) fail('no graph');
  return summary;
}

function readTensor(
  bytes: Uint8Array,
  [start, end]: [number, number],
  fail: (why: string) => never,
): OnnxTensor {
  const tensor: OnnxTensor = { name: '', dataType: 0, dims: [], raw: new Uint8Array(0) };
  for (const f of fields(bytes, start, end, fail)) {
    if (f.number === TENSOR_NAME && f.bytes) tensor.name = text(bytes, f.bytes);
    else if (f.number === TENSOR_DATA_TYPE && f.value !== undefined) tensor.dataType = f.value;
    else if (f.number === TENSOR_DIMS) {
      if (f.value !== undefined) tensor.dims.push(f.value);
      else if (f.bytes) {
        // packed repeated int64
        let at = f.bytes[0];
        while (at < f.bytes[1]) {
          const [value, next] = varint(bytes, at, f.bytes[1], fail);
          tensor.dims.push(value);
          at = next;
        }
      }
    } else if (f.number === TENSOR_RAW_DATA && f.bytes) tensor.raw = bytes.subarray(f.bytes[0], f.bytes[1]);
    else if (f.number === TENSOR_DATA_LOCATION && f.value === 1)
      fail(`tensor "${tensor.name}" has external data`);
  }
  return tensor;
}

interface Field {
  number: number;
  /** Varint fields. */
  value?: number;
  /** Length-delimited fields: [start, end) in the buffer. */
  bytes?: [number, number];
}

function* fields(
  bytes: Uint8Array,
  start: number,
  end: number,
  fail: (why: string) => never,
): Generator<Field> {
  let at = start;
  while (at < end) {
    const [key, afterKey] = varint(bytes, at, end, fail);
    at = afterKey;
    const number = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) {
      const [value, next] = varint(bytes, at, end, fail);
      at = next;
      yield { number, value };
    } else if (wire === 2) {
      const [length, next] = varint(bytes, at, end, fail);
      if (next + length > end) fail(`field ${number} runs past its message (byte ${next})`);
      at = next + length;
      yield { number, bytes: [next, at] };
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else fail(`unsupported wire type ${wire} at byte ${at}`);
  }
  if (at !== end) fail(`a field runs past its message (byte ${end})`);
}

/** A base-128 varint as a JS number; 64-bit values above 2^53 lose precision, which no field read here has. */
function varint(
  bytes: Uint8Array,
  start: number,
  end: number,
  fail: (why: string) => never,
): [number, number] {
  let value = 0;
  let scale = 1;
  for (let at = start; at < end && at - start < 10; at++) {
    const byte = bytes[at]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at + 1];
    scale *= 128;
  }
  return fail(`truncated varint at byte ${start}`);
}

function text(bytes: Uint8Array, [start, end]: [number, number]): string {
  return decoder.decode(bytes.subarray(start, end));
}
