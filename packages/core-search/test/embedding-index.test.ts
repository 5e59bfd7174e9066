// Pure data structures of the embedding strategy: bounded top-k heap, vector store, LRU, text input.
import { describe, expect, it } from 'vitest';
import { LruCache } from '../src/embedding/lru.js';
import { embeddingInput, queryEmbeddingInput } from '../src/embedding/text.js';
import { VectorStore } from '../src/embedding/vector-store.js';
import { TopK } from '../src/top-k.js';
import { random } from './helpers.js';

function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((v) => v / norm));
}

describe('TopK', () => {
  it('keeps exactly the k best of a stream, best first, like a full sort', () => {
    const next = random(7);
    const items = Array.from({ length: 5000 }, (_, id) => ({ id, score: Math.round(next() * 200) / 10 }));
    for (const k of [1, 10, 100, 6000]) {
      const top = new TopK(k);
      for (const { id, score } of items) top.push(id, score);
      const expected = [...items].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k);
      expect(top.sorted()).toEqual(expected);
    }
  });

  it('breaks ties by ascending id whatever the insertion order', () => {
    const top = new TopK(2);
    for (const id of [9, 3, 5, 1]) top.push(id, 1);
    expect(top.sorted().map((hit) => hit.id)).toEqual([1, 3]);
  });

  it('returns nothing for k = 0', () => {
    const top = new TopK(0);
    top.push(1, 1);
    expect(top.sorted()).toEqual([]);
  });
});

describe('VectorStore', () => {
  it('ranks by dot product and honours the accept filter', () => {
    const store = new VectorStore();
    store.add(10, unit([1, 0, 0]));
    store.add(11, unit([1, 1, 0]));
    store.add(12, unit([0, 1, 0]));
    const query = unit([1, 0.2, 0]);
    expect(store.search(query, 3).map((hit) => hit.id)).toEqual([10, 11, 12]);
    expect(store.search(query, 3, (id) => id !== 10).map((hit) => hit.id)).toEqual([11, 12]);
    expect(store.dims).toBe(3);
  });

  it('forgets removed vectors and gives the same ranking after compaction', () => {
    const next = random(3);
    const store = new VectorStore();
    const vectors = new Map<number, Float32Array>();
    for (let id = 0; id < 500; id++) {
      const vector = unit([next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5]);
      vectors.set(id, vector);
      store.add(id, vector);
    }
    const removed = [...vectors.keys()].filter((id) => id % 3 !== 0);
    store.remove(removed); // 333 tombstones > 167 live rows: compacts
    expect(store.size).toBe(167);
    for (const id of removed) expect(store.has(id)).toBe(false);
    const query = unit([0.3, -0.2, 0.9, 0.1]);
    const hits = store.search(query, 1000);
    expect(hits).toHaveLength(167);
    expect(hits.some((hit) => removed.includes(hit.id))).toBe(false);
    const expected = [...vectors]
      .filter(([id]) => id % 3 === 0)
      .map(([id, v]) => ({ id, score: v.reduce((sum, x, i) => sum + x * query[i]!, 0) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map((hit) => hit.id);
    expect(hits.map((hit) => hit.id)).toEqual(expected);
    store.add(1000, unit([0.3, -0.2, 0.9, 0.1]));
    expect(store.search(query, 1)[0]!.id).toBe(1000);
  });

  it('rejects a vector of the wrong length', () => {
    const store = new VectorStore();
    store.add(1, unit([1, 0]));
    expect(() => store.add(2, unit([1, 0, 0]))).toThrow(RangeError);
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entry', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // "b" is now the oldest
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });
});

describe('embeddingInput', () => {
  it('splits camelCase and snake_case identifiers into words', () => {
    expect(embeddingInput('browser_takeScreenshot')).toBe('browser take Screenshot');
    expect(embeddingInput('parseHTMLDocument now')).toBe('parse HTML Document now');
    expect(embeddingInput('  my site\nfeels slow ')).toBe('my site feels slow');
  });
});

describe('queryEmbeddingInput', () => {
  it('turns argument values (web addresses, file paths) into what kind of value they are', () => {
    expect(queryEmbeddingInput('Navigate to https://www.taobao.com using Firefox.')).toBe(
      'Navigate to url using Firefox.',
    );
    expect(queryEmbeddingInput('open www.baidu.com/news?id=3 now')).toBe('open url now');
    expect(queryEmbeddingInput('read ./test_project_root/src/main.py and ../docs/README.md')).toBe(
      'read path and path',
    );
    expect(queryEmbeddingInput('POST a JSON body to /api/login')).toBe('POST a JSON body to path');
    expect(queryEmbeddingInput('list src/utils/helpers and open src/index.ts')).toBe(
      'list path and open path',
    );
    expect(queryEmbeddingInput('copy C:\\Users\\me\\notes.txt to ~/backup')).toBe('copy path to path');
  });

  it('leaves words joined by one slash, fractions and dates alone', () => {
    for (const query of [
      'search and/or filter',
      'TCP/IP settings',
      'issues in facebook/react',
      'add 1/2 cup',
      'events on 2024/01/15',
    ]) {
      expect(queryEmbeddingInput(query)).toBe(query);
    }
  });

  it('splits identifiers as embeddingInput does', () => {
    expect(queryEmbeddingInput('browser_takeScreenshot of https://example.com')).toBe(
      'browser take Screenshot of url',
    );
  });
});
