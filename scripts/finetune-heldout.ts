/**
 * Writes the held-out slice of a dataset used for fine-tuning (scripts/model/finetune.ts):
 * the same registry, only the queries answered by a held-out tool. For honest evaluation
 * of the fine-tuned model with `toolsearch eval --dataset OUT`.
 *
 *   npx tsx --conditions=toolsearch-source scripts/finetune-heldout.ts ../shared/datasets/metatool.json /tmp/metatool-heldout.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DEFAULT_FINETUNE, heldOutSlice } from './model/finetune.js';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: finetune-heldout.ts DATASET.json OUT.json\n');
  process.exit(2);
}
const slice = heldOutSlice(JSON.parse(readFileSync(input, 'utf8')), DEFAULT_FINETUNE.heldOutShare);
writeFileSync(output, JSON.stringify(slice));
process.stderr.write(`${output}: ${slice.queries.length} queries over ${slice.tools.length} tools\n`);
