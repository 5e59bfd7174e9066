/**
 * Writes the static embedding model as a BERT-shaped ONNX graph that
 * transformers.js' feature-extraction pipeline can run:
 *   last_hidden_state[b,t,:] = float(table_q8[input_ids[b,t]]) * scale[input_ids[b,t]] * attention_mask[b,t]
 * Mean pooling and L2 normalisation are then done by the pipeline.
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export function buildStaticEmbeddingOnnx(
  table: Int8Array,
  scales: Float32Array,
  rows: number,
  dims: number,
): Uint8Array {
  const T = onnx.TensorProto.DataType;
  const int64Matrix = (name: string) =>
    onnx.ValueInfoProto.create({
      name,
      type: {
        tensorType: {
          elemType: T.INT64,
          shape: { dim: [{ dimParam: 'batch_size' }, { dimParam: 'sequence_length' }] },
        },
      },
    });
  const node = (opType: string, input: string[], output: string, attribute: Record<string, number> = {}) =>
    onnx.NodeProto.create({
      opType,
      input,
      output: [output],
      name: `${output}_${opType}`,
      attribute: Object.entries(attribute).map(([name, i]) =>
        onnx.AttributeProto.create({ name, i, type: onnx.AttributeProto.AttributeType.INT }),
      ),
    });
  const graph = onnx.GraphProto.create({
    name: 'static_word_embedding',
    input: [int64Matrix('input_ids'), int64Matrix('attention_mask')],
    output: [
      onnx.ValueInfoProto.create({
        name: 'last_hidden_state',
        type: {
          tensorType: {
            elemType: T.FLOAT,
            shape: {
              dim: [{ dimParam: 'batch_size' }, { dimParam: 'sequence_length' }, { dimValue: dims }],
            },
          },
        },
      }),
    ],
    initializer: [
      onnx.TensorProto.create({
        name: 'emb_q8',
        dataType: T.INT8,
        dims: [rows, dims],
        rawData: new Uint8Array(table.buffer, table.byteOffset, table.byteLength),
      }),
      onnx.TensorProto.create({
        name: 'emb_scale',
        dataType: T.FLOAT,
        dims: [rows, 1],
        rawData: new Uint8Array(scales.buffer, scales.byteOffset, scales.byteLength),
      }),
      onnx.TensorProto.create({
        name: 'unsq_axes',
        dataType: T.INT64,
        dims: [1],
        rawData: new Uint8Array(new BigInt64Array([2n]).buffer),
      }),
    ],
    node: [
      node('Gather', ['emb_q8', 'input_ids'], 'g_q8', { axis: 0 }),
      node('Cast', ['g_q8'], 'g_f', { to: T.FLOAT }),
      node('Gather', ['emb_scale', 'input_ids'], 'g_s', { axis: 0 }),
      node('Mul', ['g_f', 'g_s'], 'tok_emb'),
      node('Cast', ['attention_mask'], 'mask_f', { to: T.FLOAT }),
      node('Unsqueeze', ['mask_f', 'unsq_axes'], 'mask_3d'),
      node('Mul', ['tok_emb', 'mask_3d'], 'last_hidden_state'),
    ],
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'toolsearch-build-model',
    opsetImport: [{ domain: '', version: 13 }],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}
