/**
 * On-disk cache of document vectors: one file per embedder id, mapping the
 * sha256 of each document's embedding text to its vector, so re-indexing unchanged tools
 * runs no inference. Writes go to a temp file renamed into place (atomic on one
 * file system): a crash or a concurrent writer never leaves a torn file. A file
 * that cannot be read is treated as empty, never as an error. A file that reads but
 * holds vectors the model cannot have produced (another width, NaN or infinite values,
 * not unit length) is not believed: one warning, the file is deleted, and the vectors
 * are computed again (and written back) as for a cold start.
 *
 * Layout: "TSEMB002" | uint32 dims | uint32 count | count x (16-byte hash | dims float32), little-endian.
 * (TSEMB001 hashed the model input, embeddingInput(text); its files are not read.)
 */
import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

const MAGIC = 'TSEMB002';
const HASH_BYTES = 16;
const HEADER_BYTES = 16;
/** Beyond this many vectors, entries not used by the current index are dropped. */
const MAX_ENTRIES = 200_000;

/** $XDG_CACHE_HOME/toolsearch, else ~/.cache/toolsearch. */
export function defaultCacheDir(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'toolsearch');
}

/** crypto.hash (Node 20.12+): one call, no Hash object per text. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** The cache key of one text: hex of the first 16 bytes of its sha256. */
export function textKey(text: string): string {
  const hex = oneShot ? oneShot('sha256', text, 'hex') : createHash('sha256').update(text).digest('hex');
  return hex.slice(0, HASH_BYTES * 2);
}

/** How far a stored vector's length may be from 1 (embedders return unit vectors; float32 rounding is ~1e-7). */
const NORM_TOLERANCE = 1e-3;

/** Why a stored vector cannot be believed, or undefined when it can. */
export function vectorProblem(vector: Float32Array, dims: number | undefined): string | undefined {
  if (dims !== undefined && vector.length !== dims) return `${vector.length} values, the model gives ${dims}`;
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (!Number.isFinite(norm)) return 'a value that is NaN or infinite';
  norm = Math.sqrt(norm);
  // Zero is what a text made only of unknown words embeds to.
  if (norm > 1e-6 && Math.abs(norm - 1) > NORM_TOLERANCE) return `length ${norm.toPrecision(3)}, not 1`;
  return undefined;
}

export class EmbeddingDiskCache {
  readonly file: string;
  private entries?: Promise<Map<string, Float32Array>>;

  /** @param onInvalid told (once per file read) why a file was not believed and deleted. */
  constructor(
    dir: string,
    embedderId: string,
    private readonly onInvalid: (reason: string) => void = () => undefined,
  ) {
    const name = createHash('sha256').update(embedderId).digest('hex').slice(0, 24);
    this.file = join(dir, 'embeddings', `${name}.bin`);
  }

  /**
   * Every cached vector, read once. `dims` is the model's vector width when known: a
   * file of another width is not believed.
   */
  load(dims?: number): Promise<Map<string, Float32Array>> {
    this.entries ??= this.read(dims);
    return this.entries;
  }

  /**
   * Forgets the vectors read (the next load() reads the file again). The retriever calls it
   * after each indexing pass: its vector store holds what is in use, and keeping a second
   * copy of every vector for the next add() cost ~60 MB at 100k tools.
   */
  release(): void {
    this.entries = undefined;
  }

  /** Adds vectors and rewrites the file, keeping `inUse` keys first when over the size cap. */
  async save(added: Map<string, Float32Array>, inUse: ReadonlySet<string>): Promise<void> {
    const entries = await this.load();
    for (const [key, vector] of added) entries.set(key, vector);
    if (entries.size > MAX_ENTRIES) {
      for (const key of [...entries.keys()]) {
        if (entries.size <= MAX_ENTRIES) break;
        if (!inUse.has(key)) entries.delete(key);
      }
    }
    await this.write(entries);
  }

  private async read(expectedDims: number | undefined): Promise<Map<string, Float32Array>> {
    const entries = new Map<string, Float32Array>();
    let bytes: Buffer;
    try {
      bytes = await readFile(this.file);
    } catch {
      return entries;
    }
    if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== MAGIC) return entries;
    const dims = bytes.readUInt32LE(8);
    const count = bytes.readUInt32LE(12);
    const stride = HASH_BYTES + dims * 4;
    if (dims === 0 || bytes.length !== HEADER_BYTES + count * stride) return entries;
    // The vectors are views into one copy of the file (4-byte aligned, like every row in
    // it): a Float32Array and its own buffer per vector were most of reading a 10k file.
    const floats = new Float32Array(new Uint8Array(bytes).buffer);
    for (let i = 0; i < count; i++) {
      const offset = HEADER_BYTES + i * stride;
      const key = bytes.toString('hex', offset, offset + HASH_BYTES);
      const start = (offset + HASH_BYTES) / 4;
      const vector = floats.subarray(start, start + dims);
      const problem = vectorProblem(vector, expectedDims);
      if (problem !== undefined) return this.discard(`vector ${i} of ${count} has ${problem}`);
      entries.set(key, vector);
    }
    return entries;
  }

  /** Deletes a file that is not believed, so that the next write starts it afresh. */
  private async discard(reason: string): Promise<Map<string, Float32Array>> {
    this.onInvalid(
      `toolsearch: embedding cache ${this.file} is corrupt (${reason}); deleted, vectors are recomputed`,
    );
    await rm(this.file, { force: true }).catch(() => undefined);
    return new Map();
  }

  private async write(entries: Map<string, Float32Array>): Promise<void> {
    const first = entries.values().next();
    if (first.done) return;
    const dims = first.value.length;
    const stride = HASH_BYTES + dims * 4;
    const rows = [...entries].filter(([, vector]) => vector.length === dims);
    const bytes = Buffer.alloc(HEADER_BYTES + rows.length * stride);
    bytes.write(MAGIC, 0, 'latin1');
    bytes.writeUInt32LE(dims, 8);
    bytes.writeUInt32LE(rows.length, 12);
    rows.forEach(([key, vector], i) => {
      const offset = HEADER_BYTES + i * stride;
      bytes.write(key, offset, HASH_BYTES, 'hex');
      bytes.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), offset + HASH_BYTES);
    });
    await mkdir(join(this.file, '..'), { recursive: true });
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, bytes);
      await rename(temp, this.file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }
}
