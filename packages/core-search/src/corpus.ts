import { DEFAULTS, FIELD_NAMES, type FieldName } from './defaults.js';
import type { IndexedDoc } from './retriever.js';

/**
 * Per-field term frequencies of one term in one document, packed into one number:
 * 8 bits per field in FIELD_NAMES order (counts saturate at 255). One small typed array
 * per posting made garbage collection the largest cost of indexing 10k tools.
 */
const FIELD_BASE = FIELD_NAMES.map((_, f) => 256 ** f);

/** The count of field `f` in a packed posting. */
export function fieldCount(packed: number, f: number): number {
  return Math.floor(packed / FIELD_BASE[f]!) % 256;
}

/** A weighted query term: original terms weigh 1, expansions less. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/**
 * The shared inverted index: term -> document -> per-field term frequency, with field
 * lengths. Several strategies score from it (BM25F keyword, TF-IDF, synonym and prefix
 * expansion), so it is built once per add() instead of once per strategy. Adding and
 * removing documents is incremental; nothing is ever rebuilt wholesale.
 */
export class Corpus {
  readonly postings = new Map<string, Map<number, number>>();
  readonly fieldLengths = new Map<number, Float32Array>();
  private readonly totalLengths = new Float64Array(FIELD_NAMES.length);
  /** Bumped on every change so derived structures (vocabulary, norms) know to refresh. */
  version = 0;

  get size(): number {
    return this.fieldLengths.size;
  }

  add(docs: readonly IndexedDoc[]): void {
    for (const doc of docs) {
      const lengths = new Float32Array(FIELD_NAMES.length);
      FIELD_NAMES.forEach((field, f) => {
        const terms = doc.fields[field];
        lengths[f] = terms.length;
        this.totalLengths[f]! += terms.length;
        for (const term of terms) {
          let byDoc = this.postings.get(term);
          if (!byDoc) {
            byDoc = new Map();
            this.postings.set(term, byDoc);
          }
          const packed = byDoc.get(doc.id) ?? 0;
          if (fieldCount(packed, f) < 255) byDoc.set(doc.id, packed + FIELD_BASE[f]!);
        }
      });
      this.fieldLengths.set(doc.id, lengths);
    }
    this.version++;
  }

  remove(docs: readonly IndexedDoc[]): void {
    for (const doc of docs) {
      const lengths = this.fieldLengths.get(doc.id);
      if (!lengths) continue;
      FIELD_NAMES.forEach((field, f) => {
        this.totalLengths[f]! -= lengths[f]!;
        for (const term of doc.fields[field]) {
          const byDoc = this.postings.get(term);
          if (!byDoc) continue;
          byDoc.delete(doc.id);
          if (byDoc.size === 0) this.postings.delete(term);
        }
      });
      this.fieldLengths.delete(doc.id);
    }
    this.version++;
  }

  /** Documents containing the term in any field. */
  df(term: string): number {
    return this.postings.get(term)?.size ?? 0;
  }

  /** BM25 idf, always positive. */
  idf(term: string): number {
    const n = this.size;
    const df = this.df(term);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  averageLength(field: FieldName): number {
    const f = FIELD_NAMES.indexOf(field);
    return this.size === 0 ? 0 : this.totalLengths[f]! / this.size;
  }

  /**
   * BM25F: field-weighted, per-field length-normalised term frequency, saturated once
   * per term (so a term repeated across fields is not counted as independent evidence).
   */
  bm25f(terms: readonly WeightedTerm[], accept?: (id: number) => boolean): Map<number, number> {
    const { k1, b, fieldWeights } = DEFAULTS.bm25;
    const weights = FIELD_NAMES.map((field) => fieldWeights[field]);
    const bs = FIELD_NAMES.map((field) => b[field]);
    const averages = FIELD_NAMES.map((field) => this.averageLength(field) || 1);
    const scores = new Map<number, number>();
    for (const { term, weight } of terms) {
      const byDoc = this.postings.get(term);
      if (!byDoc) continue;
      const idf = this.idf(term);
      for (const [id, packed] of byDoc) {
        if (accept && !accept(id)) continue;
        const lengths = this.fieldLengths.get(id)!;
        let weighted = 0;
        for (let f = 0; f < FIELD_NAMES.length; f++) {
          const count = fieldCount(packed, f);
          if (count === 0) continue;
          const norm = 1 - bs[f]! + (bs[f]! * lengths[f]!) / averages[f]!;
          weighted += (weights[f]! * count) / norm;
        }
        const score = (weight * idf * weighted * (k1 + 1)) / (k1 + weighted);
        scores.set(id, (scores.get(id) ?? 0) + score);
      }
    }
    return scores;
  }
}

/** Merge duplicate query terms, keeping the highest weight (a query repeating a word is not two matches). */
export function uniqueTerms(terms: readonly WeightedTerm[]): WeightedTerm[] {
  const best = new Map<string, number>();
  for (const { term, weight } of terms) best.set(term, Math.max(best.get(term) ?? 0, weight));
  return [...best].map(([term, weight]) => ({ term, weight }));
}
