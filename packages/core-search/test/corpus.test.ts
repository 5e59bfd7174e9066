import { describe, expect, it } from 'vitest';
import { AnalysisMemo } from '../src/analysis/analyze.js';
import { analyzeQuery } from '../src/analysis/query.js';
import { Corpus, FIELD_RADIX, fieldCount, uniqueTerms, weightedTf } from '../src/corpus.js';
import { DEFAULTS, FIELD_NAMES } from '../src/defaults.js';
import { analyzeTool } from '../src/internals.js';
import { onGrid } from '../src/retrieval/grid.js';
import { literalWeight } from '../src/retrieval/literal-weight.js';
import { Vocabulary } from '../src/retrieval/vocabulary.js';
import { IncrementalNorms } from '../src/retrievers/tfidf.js';
import { bestOf, candidates, Scores } from '../src/top-k.js';

const docs = [
  analyzeTool({ name: 'weather', description: 'Weather forecast for a city.' }, 0),
  analyzeTool({ name: 'city_info', description: 'Facts about a city: population, area.' }, 1),
  analyzeTool({ name: 'stocks', description: 'Stock quotes.' }, 2),
];

/**
 * A TF-IDF document norm computed directly: sqrt(sum over the doc's terms of (log(1 + tf) x
 * (ln((N + 1) / (df + 1)) + 1))^2), with N and each df taken through `count` (the norms' grid).
 */
function directNorm(corpus: Corpus, doc: (typeof docs)[number], count: (n: number) => number): number {
  const tfs = new Map<string, number>();
  FIELD_NAMES.forEach((field, f) => {
    for (const term of doc.fields[field]) tfs.set(term, (tfs.get(term) ?? 0) + FIELD_RADIX ** f);
  });
  let sum = 0;
  for (const [term, packed] of tfs) {
    const idf = Math.log((count(corpus.size) + 1) / (count(corpus.df(term)) + 1)) + 1;
    sum += (Math.log1p(weightedTf(packed)) * idf) ** 2;
  }
  return Math.sqrt(sum);
}

/** The top `limit` of bm25f(query) in each query shape. */
const bm25fByShape = (corpus: Corpus, query: { term: string; weight: number }[], limit: number) =>
  (['identifier', 'keywords', 'natural'] as const).map((shape) =>
    corpus.bm25f(query, undefined, shape).top(limit),
  );

/** Every term's postings, by term. */
const postingsOf = (corpus: Corpus) =>
  [...corpus.terms()].sort().map((term) => {
    const list = corpus.postingList(term)!;
    return [term, [...list.ids], [...list.packed]];
  });

describe('Corpus', () => {
  it('packs per-field counts into one number per posting', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    const packed = corpus.postingList('weather')!.packed[0]!;
    expect(fieldCount(packed, FIELD_NAMES.indexOf('name'))).toBe(1);
    expect(fieldCount(packed, FIELD_NAMES.indexOf('description'))).toBe(1);
    expect(fieldCount(packed, FIELD_NAMES.indexOf('schema'))).toBe(0);
    expect(corpus.df('citi')).toBe(2);
    expect(corpus.size).toBe(3);
  });

  it('topBm25f equals bm25f().top() exactly, whether or not the query terms were summed before', () => {
    const tools = Array.from({ length: 40 }, (_, i) =>
      analyzeTool(
        {
          name: `tool_${i % 7}_${['weather', 'city', 'stock', 'file'][i % 4]}`,
          description: `${['Weather forecast', 'City facts', 'Stock quotes', 'Read a file'][i % 4]} for a city ${'and more '.repeat(i % 5)}`,
        },
        i,
      ),
    );
    const corpus = new Corpus();
    corpus.add(tools.slice(0, 30));
    const own = ['weather', 'citi', 'unknownword', 'forecast'].map((term) => ({ term, weight: 1 }));
    const lists = [
      own,
      [...own, { term: 'stock', weight: 0.4 }, { term: 'quot', weight: 0.4 }],
      [...own.filter((t) => t.term !== 'unknownword'), { term: 'file', weight: 0.7 }], // fuzzy leaves unseen words out
      [
        { term: 'citi', weight: 1 },
        { term: 'weather', weight: 0.3 },
        { term: 'forecast', weight: 0.2 },
      ], // reaches the top own-term documents
      [{ term: 'file', weight: 0.7 }, ...own], // no leading own terms
      own.slice(0, 2),
    ];
    const even = (id: number) => id % 2 === 0;
    const check = () => {
      for (const shape of ['keywords', 'natural'] as const) {
        for (const accept of [undefined, even]) {
          for (const limit of [1, 2, 3, 7, 50]) {
            for (const terms of [...lists, ...lists]) {
              const expected = corpus.bm25f(terms, accept, shape).top(limit);
              expect(expected.length).toBeGreaterThan(0);
              expect(corpus.topBm25f(terms, limit, accept, shape)).toEqual(expected);
              // Given what matched, every hit carries that list (the same array), and only then.
              const matched = ['quot'];
              const withMatched = corpus.topBm25f(terms, limit, accept, shape, matched);
              expect(withMatched).toEqual(expected.map(({ id, score }) => ({ id, score, matched })));
              expect(withMatched.every((hit) => hit.matched === matched)).toBe(true);
              expect(corpus.topBm25f(terms, limit, accept, shape).some((hit) => 'matched' in hit)).toBe(
                false,
              );
            }
          }
        }
      }
    };
    check();
    corpus.add(tools.slice(30)); // a new corpus version: nothing summed before may be reused
    check();
    corpus.remove(tools.slice(0, 3));
    check();
  });

  it('topBm25f is exact when the expansions reach the head of the shared ranking', () => {
    // Equal own-term scores, so the shared ranking is by id; the expansion reaches exactly its head.
    const tools = Array.from({ length: 6 }, (_, i) =>
      analyzeTool({ name: `t${i}`, description: `alpha ${i < 2 ? 'gamma' : 'beta'}` }, i),
    );
    const corpus = new Corpus();
    corpus.add(tools);
    const terms = [
      { term: 'alpha', weight: 1 },
      { term: 'gamma', weight: 0.5 },
    ];
    for (const limit of [1, 2, 3, 6]) {
      expect(corpus.topBm25f(terms.slice(0, 1), limit)).toEqual(corpus.bm25f(terms.slice(0, 1)).top(limit));
      expect(corpus.topBm25f(terms, limit)).toEqual(corpus.bm25f(terms).top(limit));
    }
    expect(corpus.topBm25f(terms, 3).map((hit) => hit.id)).toEqual([0, 1, 2]);
  });

  it('computes BM25F as documented', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    const { k1, b } = DEFAULTS.bm25;
    const fieldWeights = DEFAULTS.bm25.fieldWeights.keywords;
    // "stock" occurs once in the description of doc 2 (and "stocks" stems to it in the name).
    const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const norm = (field: 'name' | 'description', length: number) =>
      1 - b[field] + (b[field] * length) / corpus.averageLength(field);
    const tf = fieldWeights.name / norm('name', 1) + fieldWeights.description / norm('description', 2);
    const expected = (idf * tf * (k1 + 1)) / (k1 + tf);
    expect(corpus.bm25f([{ term: 'stock', weight: 1 }]).get(2)).toBeCloseTo(expected, 10);
  });

  it('scales a term by its query weight and ignores unknown terms', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    const full = corpus.bm25f([{ term: 'forecast', weight: 1 }]).get(0);
    const half = corpus
      .bm25f([
        { term: 'forecast', weight: 0.5 },
        { term: 'zzz', weight: 1 },
      ])
      .get(0);
    expect(half).toBeCloseTo(full / 2, 12);
  });

  it('forgets removed documents completely', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    const version = corpus.version;
    corpus.remove([docs[2]!]);
    expect(corpus.version).toBeGreaterThan(version);
    expect(corpus.has('stock')).toBe(false);
    expect(corpus.df('stock')).toBe(0);
    expect(corpus.size).toBe(2);
    const fresh = new Corpus();
    fresh.add(docs.slice(0, 2));
    expect(corpus.averageLength('description')).toBeCloseTo(fresh.averageLength('description'), 12);
    expect(corpus.bm25f([{ term: 'citi', weight: 1 }]).top(5)).toEqual(
      fresh.bm25f([{ term: 'citi', weight: 1 }]).top(5),
    );
  });

  it('keeps posting lists in step with adds and removes, including re-adding an id', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    // The postings a direct count over the live documents gives: ids ascending, packed counts.
    const live = new Map<number, (typeof docs)[number]>(docs.map((doc) => [doc.id, doc]));
    const sameAsMap = () => {
      const expected = new Map<string, Map<number, number>>();
      for (const doc of [...live.values()].sort((x, y) => x.id - y.id)) {
        FIELD_NAMES.forEach((field, f) => {
          for (const term of doc.fields[field]) {
            const byDoc = expected.get(term) ?? new Map<number, number>();
            byDoc.set(doc.id, (byDoc.get(doc.id) ?? 0) + FIELD_RADIX ** f);
            expected.set(term, byDoc);
          }
        });
      }
      expect([...corpus.terms()].sort()).toEqual([...expected.keys()].sort());
      for (const [term, byDoc] of expected) {
        const list = corpus.postingList(term)!;
        expect([...list.ids]).toEqual([...byDoc.keys()]);
        expect([...list.packed]).toEqual([...byDoc.values()]);
        expect(corpus.df(term)).toBe(byDoc.size);
      }
    };
    expect([...corpus.postingList('citi')!.ids]).toEqual([0, 1]);
    expect(corpus.postingList('zzz')).toBeUndefined();
    sameAsMap();
    corpus.remove([docs[1]!]);
    live.delete(1);
    expect([...corpus.postingList('citi')!.ids]).toEqual([0]);
    expect(corpus.postingList('popul')).toBeUndefined();
    sameAsMap();
    const changed = analyzeTool({ name: 'city_stats', description: 'City population, city area.' }, 1);
    corpus.add([changed]); // the same id again, with different text
    live.set(1, changed);
    expect([...corpus.postingList('citi')!.ids]).toEqual([0, 1]);
    const packed = corpus.postingList('citi')!.packed[1]!;
    expect(fieldCount(packed, FIELD_NAMES.indexOf('description'))).toBe(2);
    sameAsMap();
  });

  it('builds the same postings in one bulk add as one document at a time, and after a re-added id', () => {
    const many = [
      ...docs,
      analyzeTool({ name: 'city_weather', description: 'Weather and city weather alerts.' }, 3),
      // A term repeated beyond a field's count saturation (63), and in several fields.
      analyzeTool(
        { name: 'weather_log', description: `${'weather '.repeat(70)}city`, tags: ['weather', 'log'] },
        4,
      ),
      analyzeTool({ name: 'stock_alerts', description: 'Stock alerts for a city.' }, 5),
    ];
    const bulk = new Corpus();
    bulk.add(many);
    const single = new Corpus();
    for (const doc of many) single.add([doc]);
    const chunks = new Corpus();
    chunks.add(many.slice(0, 2));
    chunks.add(many.slice(2));
    expect(postingsOf(bulk)).toEqual(postingsOf(single));
    expect(postingsOf(chunks)).toEqual(postingsOf(single));
    const saturated = bulk.postingList('weather')!;
    expect(fieldCount(saturated.packed[saturated.ids.indexOf(4)]!, FIELD_NAMES.indexOf('description'))).toBe(
      FIELD_RADIX - 1,
    );
    for (const field of FIELD_NAMES) expect(bulk.averageLength(field)).toBe(single.averageLength(field));
    // An id below the largest (a tool re-indexed in place) among new ones: the same postings too.
    bulk.remove([many[1]!]);
    bulk.add([many[1]!, analyzeTool({ name: 'more_weather', description: 'More weather.' }, 6)]);
    single.add([analyzeTool({ name: 'more_weather', description: 'More weather.' }, 6)]);
    expect(postingsOf(bulk)).toEqual(postingsOf(single));
  });
  it("gives a bulk add's new terms views into one pair of arrays, which grow, shrink and refill apart", () => {
    const first = Array.from({ length: 6 }, (_, i) =>
      analyzeTool({ name: `tool${i}x`, description: `alpha beta gamma ${i % 2 ? 'delta' : 'epsilon'}` }, i),
    );
    const later = [
      analyzeTool({ name: 'tool6x', description: 'alpha gamma zeta' }, 6),
      analyzeTool({ name: 'tool7x', description: 'beta epsilon zeta' }, 7),
    ];
    const bulk = new Corpus();
    bulk.add(first);
    // Neighbouring terms of the first add share their arrays: one pair for the whole add.
    const buffers = new Set(['alpha', 'beta', 'gamma', 'delta'].map((t) => bulk.postingList(t)!.ids.buffer));
    expect(buffers.size).toBe(1);
    const single = new Corpus();
    for (const doc of first) single.add([doc]);
    expect(postingsOf(bulk)).toEqual(postingsOf(single));
    // A list that grows is copied out, and its neighbours keep their own postings; a remove
    // shifts a list within its own part only; a re-added id goes back in its place.
    for (const corpus of [bulk, single]) {
      corpus.add(later);
      corpus.remove([first[2]!]);
      corpus.add([analyzeTool({ name: 'tool8x', description: 'delta gamma' }, 8)]);
      corpus.add([first[2]!]);
    }
    expect(postingsOf(bulk)).toEqual(postingsOf(single));
    expect([...bulk.postingList('alpha')!.ids]).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect([...bulk.postingList('beta')!.ids]).toEqual([0, 1, 2, 3, 4, 5, 7]);
  });

  it('builds the same postings from documents sharing term arrays (one analysis memo) as from copies', () => {
    const tools = Array.from({ length: 12 }, (_, i) => ({
      name: `m${i % 4}__${['get_weather', 'city_facts'][i % 2]}`,
      // Terms repeated within a shared array, beyond the count saturation (63) too.
      description: [
        'Weather, weather for a city.',
        'City facts.',
        'Stock quotes for a city and a city.',
        `${'city weather '.repeat(70)}stock`,
      ][i % 4],
      inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'The city' } } },
    }));
    const memo = new AnalysisMemo();
    const shared = tools.map((tool, i) => analyzeTool(tool, i, {}, memo));
    const copies = tools.map((tool, i) => analyzeTool(tool, i));
    expect(shared[4]!.fields.description).toBe(shared[0]!.fields.description);
    expect(copies[4]!.fields.description).not.toBe(copies[0]!.fields.description);
    const bulk = new Corpus();
    bulk.add(shared);
    const single = new Corpus();
    for (const doc of copies) single.add([doc]);
    expect(postingsOf(bulk)).toEqual(postingsOf(single));
    // Term ids are given in order of first appearance either way.
    expect([...bulk.terms()]).toEqual([...single.terms()]);
    const saturated = bulk.postingList('citi')!;
    expect(fieldCount(saturated.packed[saturated.ids.indexOf(7)]!, FIELD_NAMES.indexOf('description'))).toBe(
      FIELD_RADIX - 1,
    );
    for (const field of FIELD_NAMES) expect(bulk.averageLength(field)).toBe(single.averageLength(field));
  });

  it('adds documents of known terms alone after adopting saved postings, as a corpus built by adds', () => {
    // More terms than the bulk add's scratch starts with (64), none of them new in the last add.
    const words = Array.from({ length: 120 }, (_, i) => `word${i}x`);
    const all = words.map((word, i) =>
      analyzeTool({ name: `${word}_tool`, description: `${word} with ${words[(i * 7) % 120]} ${word}` }, i),
    );
    const later = [
      analyzeTool({ name: 'word100x_tool', description: 'word100x word101x word100x word119x' }, 120),
      analyzeTool({ name: 'word119x', description: 'word5x' }, 121),
    ];
    const built = new Corpus();
    built.add(all);
    const lengths = new Float64Array(all.length * FIELD_NAMES.length);
    for (const [id, doc] of all.entries()) {
      for (const [f, field] of FIELD_NAMES.entries())
        lengths[id * FIELD_NAMES.length + f] = doc.fields[field].length;
    }
    const adopted = new Corpus();
    adopted.importPostings(built.exportPostings(Int32Array.from(all, (_, i) => i)), lengths, all.length);
    adopted.add(later);
    built.add(later);
    expect(postingsOf(adopted)).toEqual(postingsOf(built));
    expect([...adopted.postingList('word100x')!.ids]).toEqual([100, 120]);
  });

  it('scores BM25F exactly as a direct computation over the postings', () => {
    const { k1, b } = DEFAULTS.bm25;
    const fieldWeights = DEFAULTS.bm25.fieldWeights.keywords;
    const lengths = new Map<number, number[]>();
    const reference = (
      corpus: Corpus,
      terms: { term: string; weight: number }[],
      accept = (_: number) => true,
    ) => {
      const scores = new Map<number, number>();
      for (const { term, weight } of terms) {
        const list = corpus.postingList(term);
        if (!list) continue;
        const idf = weight * corpus.idf(term) * (k1 + 1);
        for (const [i, id] of list.ids.entries()) {
          const packed = list.packed[i]!;
          if (!accept(id)) continue;
          let weighted = 0;
          FIELD_NAMES.forEach((field, f) => {
            const count = fieldCount(packed, f);
            const norm =
              1 - b[field] + (b[field] * lengths.get(id)![f]!) / (corpus.averageLength(field) || 1);
            if (count !== 0) weighted += (fieldWeights[field] * count) / norm;
          });
          scores.set(id, (scores.get(id) ?? 0) + (idf * weighted) / (k1 + weighted));
        }
      }
      return [...scores]
        .map(([id, score]) => ({ id, score }))
        .sort((x, y) => y.score - x.score || x.id - y.id);
    };
    const more = [
      analyzeTool({ name: 'city_weather', description: 'Weather and city weather alerts.' }, 3),
      analyzeTool({ name: 'forecast', description: 'A long forecast of the weather in any city.' }, 4),
    ];
    for (const doc of [...docs, ...more])
      lengths.set(
        doc.id,
        FIELD_NAMES.map((field) => doc.fields[field].length),
      );
    const query = [
      { term: 'weather', weight: 1 },
      { term: 'citi', weight: 0.7 },
      { term: 'forecast', weight: 0.3 },
      { term: 'stock', weight: 0.5 }, // in no added or removed document, yet its norms change
    ];
    const corpus = new Corpus();
    corpus.add(docs);
    expect(corpus.bm25f(query).top(10)).toEqual(reference(corpus, query));
    corpus.add(more); // new averages: cached per-posting values must be recomputed
    expect(corpus.bm25f(query).top(10)).toEqual(reference(corpus, query));
    const odd = (id: number) => id % 2 === 1;
    expect(corpus.bm25f(query, odd).top(10)).toEqual(reference(corpus, query, odd));
    corpus.remove([docs[0]!]);
    expect(corpus.bm25f(query).top(10)).toEqual(reference(corpus, query));
  });

  it('scores BM25F with both description backoffs exactly as a direct computation, in every field and shape', () => {
    // Terms in the high fields (schema, phrasings, learned) and the low ones, counts above one,
    // and tools with and without phrasings or learned requests: every kind of entry a list's
    // tfs add, in the order the rule adds them (fields in FIELD_NAMES order, then phrasings',
    // then learned's backoff).
    const { k1, b } = DEFAULTS.bm25;
    const description = FIELD_NAMES.indexOf('description');
    const words = ['weather', 'city', 'rain', 'map', 'alert', 'wind'];
    const tools = Array.from({ length: 14 }, (_, id) =>
      analyzeTool(
        {
          name: `${words[id % 6]}_${words[(id + 1) % 6]}`,
          ...(id % 4 === 0 ? { title: `${words[(id + 2) % 6]} ${words[id % 6]}` } : {}),
          ...(id % 5 === 1 ? { tags: [words[(id + 3) % 6]!] } : {}),
          description: Array.from({ length: 1 + (id % 4) }, (_, k) => words[(id + k * 2) % 6]).join(' and '),
          inputSchema: {
            type: 'object',
            properties: { [words[(id + 4) % 6]!]: { type: 'string', description: `the ${words[id % 6]}` } },
          },
          ...(id % 3 === 0 ? { examples: [`show the ${words[(id + 1) % 6]} ${words[id % 6]}`] } : {}),
        },
        id,
        id % 4 === 2 ? { learned: [`${words[id % 6]} ${words[(id + 5) % 6]}`] } : {},
      ),
    );
    const query = words.map((term, i) => ({
      term: term === 'city' ? 'citi' : term,
      weight: i < 3 ? 1 : 0.5,
    }));
    const corpus = new Corpus();
    corpus.add(tools);
    const lengthOf = (id: number, f: number) => tools[id]!.fields[FIELD_NAMES[f]!].length;
    const withPhrasings = tools.some((tool) => tool.fields.phrasings.length > 0);
    const learnedDocs = tools.filter((tool) => tool.fields.learned.length > 0).length;
    expect(withPhrasings && learnedDocs > 0).toBe(true);
    for (const shape of ['identifier', 'keywords', 'natural'] as const) {
      const weights = DEFAULTS.bm25.fieldWeights[shape];
      const norm = (id: number, f: number) =>
        1 -
        b[FIELD_NAMES[f]!] +
        (b[FIELD_NAMES[f]!] * lengthOf(id, f)) / (corpus.averageLength(FIELD_NAMES[f]!) || 1);
      const scores = new Map<number, number>();
      for (const { term, weight } of query) {
        const list = corpus.postingList(term);
        if (!list) continue;
        const idf = weight * corpus.idf(term) * (k1 + 1);
        list.ids.forEach((id, i) => {
          let weighted = 0;
          FIELD_NAMES.forEach((field, f) => {
            const count = fieldCount(list.packed[i]!, f);
            if (count !== 0) weighted += (weights[field] * count) / norm(id, f);
          });
          const inDescription = fieldCount(list.packed[i]!, description);
          if (inDescription !== 0 && withPhrasings && lengthOf(id, FIELD_NAMES.indexOf('phrasings')) === 0)
            weighted += (weights.phrasings * inDescription) / norm(id, description);
          if (inDescription !== 0 && lengthOf(id, FIELD_NAMES.indexOf('learned')) === 0)
            weighted +=
              (((weights.learned * learnedDocs) / tools.length) * inDescription) / norm(id, description);
          scores.set(id, (scores.get(id) ?? 0) + (idf * weighted) / (k1 + weighted));
        });
      }
      const reference = [...scores]
        .map(([id, score]) => ({ id, score }))
        .sort((x, y) => y.score - x.score || x.id - y.id);
      expect(corpus.bm25f(query, undefined, shape).top(20)).toEqual(reference);
    }
  });

  it('scores BM25F after adds, removes and a re-added id exactly as a corpus built afresh, searched between changes', () => {
    // Searched between the changes, so the lists' tfs are recomputed (the averages moved) from
    // the field lengths they kept; each shape, phrasings and learned requests for the backoffs.
    const words = ['weather', 'city', 'forecast', 'stock', 'quote', 'alert', 'rain', 'map'];
    const toolOf = (id: number, variant = 0) => ({
      name: `${words[id % 8]}_${words[(id * 3 + variant) % 8]}`,
      description: Array.from(
        { length: 2 + ((id + variant) % 5) },
        (_, k) => words[(id + k * variant + k) % 8],
      ).join(' '),
      ...(id % 3 === 0 ? { examples: [`show the ${words[(id + 2) % 8]}`] } : {}),
    });
    const docOf = (id: number, variant = 0) =>
      analyzeTool(toolOf(id, variant), id, id % 4 === 1 ? { learned: [words[(id + 5) % 8]!] } : {});
    const query = [
      { term: 'weather', weight: 1 },
      { term: 'citi', weight: 1 },
      { term: 'forecast', weight: 0.7 },
      { term: 'rain', weight: 0.4 },
    ];
    const scoresOf = (corpus: Corpus) => bm25fByShape(corpus, query, 50);
    const live = new Map<number, ReturnType<typeof docOf>>();
    const corpus = new Corpus();
    const check = () => {
      const fresh = new Corpus();
      fresh.add([...live.values()].sort((x, y) => x.id - y.id));
      expect(scoresOf(corpus)).toEqual(scoresOf(fresh));
    };
    const add = (batch: ReturnType<typeof docOf>[]) => {
      corpus.add(batch);
      for (const doc of batch) live.set(doc.id, doc);
      check();
    };
    add(Array.from({ length: 12 }, (_, id) => docOf(id)));
    add([docOf(12)]);
    add([docOf(13), docOf(14)]);
    corpus.remove([live.get(4)!, live.get(9)!]);
    live.delete(4);
    live.delete(9);
    check();
    add([docOf(4, 3)]); // the id again, other lengths: every list it is in was dropped
    add([docOf(15)]);
    check();
  });

  it('scores BM25F exactly as a fresh build when a backoff comes on or goes off after a list was read', () => {
    // The searched terms are not in the added tools, so their lists (and what each keeps for
    // its tfs) outlive the adds: their tfs, first made with no backoff on, must count the
    // description again once phrasings (then learned requests) exist, and stop once gone.
    const plain = [
      analyzeTool({ name: 'weather', description: 'Weather forecast for a city, rain and wind.' }, 0),
      analyzeTool({ name: 'city_info', description: 'Facts about a city.' }, 1),
      analyzeTool({ name: 'rain_radar', description: 'Rain radar map of a city.' }, 2),
    ];
    const phrased = analyzeTool(
      { name: 'stocks', description: 'Stock quotes.', examples: ['price of a share'] },
      3,
    );
    const learned = analyzeTool({ name: 'news', description: 'Headlines.' }, 4, {
      learned: ['latest story'],
    });
    const query = [
      { term: 'citi', weight: 1 },
      { term: 'rain', weight: 1 },
      { term: 'forecast', weight: 0.5 },
    ];
    const scoresOf = (corpus: Corpus) => bm25fByShape(corpus, query, 10);
    const freshOf = (live: ReturnType<typeof analyzeTool>[]) => {
      const fresh = new Corpus();
      fresh.add(live);
      return scoresOf(fresh);
    };
    const corpus = new Corpus();
    corpus.add(plain);
    expect(scoresOf(corpus)).toEqual(freshOf(plain));
    corpus.add([phrased]);
    const withPhrasings = scoresOf(corpus);
    expect(withPhrasings).toEqual(freshOf([...plain, phrased]));
    expect(withPhrasings).not.toEqual(freshOf(plain)); // the backoff counts
    corpus.add([learned]);
    expect(scoresOf(corpus)).toEqual(freshOf([...plain, phrased, learned]));
    corpus.remove([phrased, learned]);
    expect(scoresOf(corpus)).toEqual(freshOf(plain));
  });

  it('extends a list read before an add that appended to it, and makes it again when a backoff came on', () => {
    // The searched terms are in each added tool, so each add appends to their lists: the next
    // view grows from the one read before (its entries kept for the first postings) while the
    // backoffs stay as they were, and is made whole when the add turned one on.
    const tool = (id: number, extra: { examples?: string[] } = {}) => ({
      name: `rain_${id}`,
      description: `Rain ${id % 2 === 0 ? 'radar' : 'forecast'} for a city${id % 3 === 0 ? ' and its rain' : ''}.`,
      ...extra,
    });
    const plain = Array.from({ length: 6 }, (_, id) => analyzeTool(tool(id), id));
    const query = [
      { term: 'rain', weight: 1 },
      { term: 'citi', weight: 1 },
      { term: 'radar', weight: 0.5 },
    ];
    const scoresOf = (corpus: Corpus) => bm25fByShape(corpus, query, 20);
    const corpus = new Corpus();
    const live = [...plain];
    corpus.add(plain);
    const check = () => {
      const fresh = new Corpus();
      fresh.add(live);
      expect(scoresOf(corpus)).toEqual(scoresOf(fresh));
    };
    check();
    const add = (doc: ReturnType<typeof analyzeTool>) => {
      const before = corpus.postingList('rain')!;
      corpus.add([doc]);
      live.push(doc);
      const after = corpus.postingList('rain')!;
      expect(after.grownFrom).toBe(before);
      expect([...after.ids.subarray(0, before.ids.length)]).toEqual([...before.ids]);
      check();
    };
    add(analyzeTool(tool(6), 6)); // no backoff on before or after: extended
    add(analyzeTool(tool(7, { examples: ['will it rain in the city'] }), 7)); // phrasings' backoff on
    add(analyzeTool(tool(8), 8)); // extended, with phrasings' backoff entries
    add(analyzeTool(tool(9), 9, { learned: ['rain radar'] })); // learned's backoff on
    add(analyzeTool(tool(10), 10));
    corpus.remove([live[3]!]);
    live.splice(3, 1);
    expect(corpus.postingList('rain')!.grownFrom).toBeUndefined(); // a remove: made again
    check();
    add(analyzeTool(tool(11), 11));
    corpus.add([analyzeTool({ name: 'stocks', description: 'Stock quotes.' }, 12)]);
    live.push(analyzeTool({ name: 'stocks', description: 'Stock quotes.' }, 12));
    expect(corpus.postingList('rain')!.grownFrom).toBeUndefined(); // let go at the next change
    check();
  });

  it('keeps TF-IDF norms equal to a direct computation through adds, removes and a reused id', () => {
    const direct = (corpus: Corpus, doc: (typeof docs)[number]) => directNorm(corpus, doc, (n) => n);
    const corpus = new Corpus();
    const norms = new IncrementalNorms(corpus);
    const live = new Map(docs.map((doc) => [doc.id, doc]));
    const check = () => {
      const values = norms.refresh();
      for (const doc of live.values()) expect(values[doc.id]).toBeCloseTo(direct(corpus, doc), 6);
    };
    corpus.add(docs);
    check();
    const more = [
      analyzeTool({ name: 'city_weather', description: 'Weather and city weather alerts.' }, 3),
      analyzeTool({ name: 'stock_alerts', description: 'Stock alerts for a city.' }, 4),
    ];
    corpus.add(more.slice(0, 1)); // df of "weather", "citi" moves: docs 0 and 1 change too
    live.set(3, more[0]!);
    check();
    corpus.add(more.slice(1));
    live.set(4, more[1]!);
    check();
    corpus.remove([docs[1]!]);
    live.delete(1);
    check();
    const again = analyzeTool({ name: 'city_facts', description: 'Weather facts.' }, 1);
    corpus.add([again]); // a removed id comes back
    live.set(1, again);
    check();
    // Two identical tools keep identical norms, whenever each was added.
    const twin = (id: number) =>
      analyzeTool({ name: `twin${id}`, description: 'Weather alerts for a city.' }, id);
    corpus.add([twin(5)]);
    corpus.add(more.map((doc, i) => ({ ...doc, id: 6 + i })));
    corpus.add([{ ...twin(8), name: 'twin5', fields: twin(5).fields }]);
    const values = norms.refresh();
    expect(values[8]).toBe(values[5]);
  });

  it('keeps TF-IDF norms on the grid, and an add that moves no count on it moves no other norm', () => {
    const bits = 2; // counts from 4 on in steps of a quarter to a half of themselves: 4, 6, 8, 12, 16, 24, ...
    const direct = (corpus: Corpus, doc: (typeof docs)[number]) =>
      directNorm(corpus, doc, (n) => onGrid(n, bits));
    // Every tool shares "weather" and "report"; each has a word of its own.
    const word = (i: number) =>
      `zq${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
    const tool = (id: number) =>
      analyzeTool({ name: `report_${word(id)}`, description: `Weather report ${word(id)}.` }, id);
    const corpus = new Corpus();
    const norms = new IncrementalNorms(corpus, 'keywords', DEFAULTS.tfidf.denseTerms, bits);
    const live: (typeof docs)[number][] = [];
    let quiet = 0;
    let moved = 0;
    for (let id = 0; id < 40; id++) {
      const before = norms.refresh();
      const changedBefore = norms.changedAt.slice();
      const allMovedBefore = norms.allMovedAt;
      const doc = tool(id);
      corpus.add([doc]);
      live.push(doc);
      const values = norms.refresh();
      for (const d of live) expect(values[d.id]).toBeCloseTo(direct(corpus, d), 6);
      // No count on the grid moved but the new tool's own words': the others' norms stay, unmarked.
      const shared = [...new Set(FIELD_NAMES.flatMap((field) => doc.fields[field]))].filter(
        (term) => corpus.df(term) > 1,
      );
      const still = (n: number) => onGrid(n - 1, bits) === onGrid(n, bits);
      if (still(corpus.size) && shared.every((term) => still(corpus.df(term)))) {
        quiet++;
        expect(norms.allMovedAt).toBe(allMovedBefore);
        for (const d of live.slice(0, -1)) {
          expect(values[d.id]).toBe(before[d.id]);
          expect(norms.changedAt[d.id]).toBe(changedBefore[d.id]);
        }
      } else moved++;
    }
    expect(quiet).toBeGreaterThan(10);
    expect(moved).toBeGreaterThan(5);
  });

  it('keeps the terms in most documents apart without changing a norm', () => {
    // "alpha" in every tool with many distinct counts (title and description repeats), "beta"
    // in half of them, "gamma" in later ones; every other term in one tool (its own server).
    const tool = (id: number, extra = '') =>
      analyzeTool(
        {
          name: `s${id}__op${id}`,
          title: 'alpha '.repeat(id % 4),
          description: `${'alpha '.repeat(1 + (id % 3))}${id % 2 === 0 ? 'beta ' : ''}${extra}words${id}`,
        },
        id,
      );
    const corpus = new Corpus();
    const apart = new IncrementalNorms(corpus, 'natural', { slots: 2, minDf: 4 });
    const plain = new IncrementalNorms(corpus, 'natural', { slots: 0, minDf: 1 });
    const held = new Set<number>();
    // Which terms hold the slots: internals, named through the corpus' own table (a test's privilege).
    const apartTerms = () => {
      const { denseTerm } = apart as unknown as { denseTerm: Int32Array };
      const { termsById } = corpus as unknown as { termsById: (string | undefined)[] };
      return [...denseTerm].filter((t) => t >= 0).map((t) => termsById[t]);
    };
    const add = (...added: ReturnType<typeof tool>[]) => {
      corpus.add(added);
      for (const doc of added) held.add(doc.id);
      same();
    };
    const same = () => {
      const [a, b] = [apart.refresh(), plain.refresh()];
      for (const id of held) expect(a[id]).toBe(b[id]);
    };
    add(...Array.from({ length: 12 }, (_, id) => tool(id)));
    expect(apartTerms()).toEqual(['alpha', 'beta']);
    for (let id = 12; id < 16; id++) add(tool(id)); // their df moves with each add
    // Every tool with "beta" goes: it vanishes, and its slot is free again.
    const betas = [...held].filter((id) => id % 2 === 0).map((id) => tool(id));
    corpus.remove(betas);
    for (const doc of betas) held.delete(doc.id);
    same();
    expect(apartTerms()).toEqual(['alpha']);
    // "gamma" reaches minDf in documents the sums already cover: it is taken out of them.
    add(tool(16, 'gamma '), tool(17, 'gamma '), tool(18, 'gamma '));
    expect(apartTerms()).toEqual(['alpha']);
    add(tool(19, 'gamma '));
    expect(apartTerms()).toEqual(['alpha', 'gamma']);
    // "alpha" comes to take more distinct counts than a byte codes: back into the sums.
    for (let id = 20; id < 300; id += 20)
      add(
        ...Array.from({ length: 20 }, (_, k) =>
          analyzeTool(
            {
              name: `m${id + k}__many${id + k}`,
              title: 'alpha '.repeat((id + k) % 7),
              description: 'alpha '.repeat(1 + ((id + k) % 41)),
            },
            id + k,
          ),
        ),
      );
    expect(apartTerms()).toEqual(['gamma']);
    // A removed id comes back: everything is recomputed, the slots given again (not to
    // "alpha": it still has too many counts).
    corpus.remove([tool(17, 'gamma ')]);
    held.delete(17);
    add(tool(17, 'gamma '));
    expect(apartTerms()).toEqual(['gamma']);
  });

  it('names exactly the terms whose df changed, ascending, one change back or many', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    const dfs = () => new Map([...corpus.terms()].map((term) => [term, corpus.df(term)]));
    // Term ids are internal: named through the corpus' own table (a test's privilege).
    const names = () => [...(corpus as unknown as { termsById: (string | undefined)[] }).termsById];
    const changed = (since: number) => {
      const seen: [number, number | undefined][] = [];
      corpus.termsChangedSince(since, (termId, list) => seen.push([termId, list?.length]));
      return seen;
    };
    const cases: (() => void)[] = [
      () => corpus.add([analyzeTool({ name: 'city_weather', description: 'Weather alerts for a city.' }, 3)]),
      () => corpus.remove([docs[2]!]), // "stock" and "quot" vanish
      () => corpus.add([analyzeTool({ name: 'stock_news', description: 'News about a stock.' }, 4)]),
    ];
    const start = corpus.version;
    for (const change of cases) {
      const before = dfs();
      const since = corpus.version;
      const namesBefore = names();
      change();
      const seen = changed(since);
      const ids = seen.map(([termId]) => termId);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(changed(since)).toEqual(seen); // asked again (each query shape's norms do): the same
      for (const [termId, df] of seen) expect(corpus.hasTermId(termId)).toBe(df !== undefined);
      const after = dfs();
      const moved = [...new Set([...before.keys(), ...after.keys()])].filter(
        (term) => before.get(term) !== after.get(term),
      );
      expect(seen.length).toBe(moved.length);
      for (const [termId, df] of seen) {
        const term = names()[termId] ?? namesBefore[termId];
        expect(moved).toContain(term);
        expect(df).toBe(after.get(term!)); // undefined: vanished
      }
    }
    // Several changes back: the scan names every term any of them moved, in the same order.
    const all = changed(start).map(([termId]) => termId);
    expect(all).toEqual([...all].sort((a, b) => a - b));
    expect(all.length).toBeGreaterThanOrEqual(changed(corpus.version - 1).length);
  });

  it('measures how much of a query it knows', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    expect(corpus.coverage(['weather', 'zzz'])).toBe(0.5);
    expect(corpus.coverage(['citi'], 2)).toBe(1);
    expect(corpus.coverage(['weather'], 2)).toBe(0);
    expect(corpus.coverage(['zzz'], 1, (term) => term === 'zzz')).toBe(1);
    expect(corpus.coverage([])).toBe(1);
  });

  it('counts each distinct term once in coverage, for a few terms or many', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    expect(corpus.coverage(['weather', 'zzz', 'weather', 'weather'])).toBe(0.5);
    // Past 32 terms another path counts them; the same share either way.
    const many = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? 'weather' : `unknown${i % 5}`));
    const distinct = [...new Set(many)];
    const known = distinct.filter((term) => corpus.df(term) > 0).length;
    expect(corpus.coverage(many)).toBe(known / distinct.length);
    expect(corpus.coverage(many.slice(0, 10))).toBe(corpus.coverage([...new Set(many.slice(0, 10))]));
  });

  it('weighs literal strategies by the squared share of known terms, afresh after a change', () => {
    const corpus = new Corpus();
    corpus.add(docs);
    const query = analyzeQuery('weather zzzz');
    expect(query.shape).toBe('keywords');
    expect(literalWeight(corpus, query)).toBe(0.25);
    expect(literalWeight(corpus, query)).toBe(0.25); // asked again (keyword, then tfidf)
    expect(literalWeight(corpus, query, (term) => term === 'zzzz')).toBe(1);
    corpus.add([analyzeTool({ name: 'zzzz', description: 'Sleep.' }, 3)]);
    expect(literalWeight(corpus, query)).toBe(1); // the same query object, a changed corpus
    expect(literalWeight(corpus, analyzeQuery('what is the weather like in qqqq today'))).toBe(1);
  });

  it('merges duplicate query terms by their highest weight', () => {
    expect(
      uniqueTerms([
        { term: 'a', weight: 0.4 },
        { term: 'a', weight: 1 },
        { term: 'b', weight: 0.2 },
      ]),
    ).toEqual([
      { term: 'a', weight: 1 },
      { term: 'b', weight: 0.2 },
    ]);
    // Short lists (a query's words) and long ones (prefix completions) take different paths to one answer.
    const reference = (list: readonly { term: string; weight: number }[]) => {
      const merged: { term: string; weight: number }[] = [];
      for (const { term, weight } of list) {
        const kept = merged.find((entry) => entry.term === term);
        if (kept) kept.weight = Math.max(kept.weight, weight);
        else merged.push({ term, weight });
      }
      return merged;
    };
    const list = Array.from({ length: 80 }, (_, i) => ({ term: `t${(i * 7) % 30}`, weight: (i % 9) / 8 }));
    for (const length of [5, 20, 32, 33, 80]) {
      expect(uniqueTerms(list.slice(0, length))).toEqual(reference(list.slice(0, length)));
    }
  });
});

describe('Vocabulary', () => {
  const corpus = new Corpus();
  corpus.add(docs);
  const vocabulary = new Vocabulary(corpus);

  it('lists completions in sorted order, without the prefix itself', () => {
    expect(vocabulary.completions('forec', 10)).toEqual(['forecast']);
    expect(vocabulary.completions('weather', 10)).toEqual([]);
    expect(vocabulary.completions('', 2)).toHaveLength(2);
  });

  it("lists a word's and its stem's completions together, shortest first, without the stem", () => {
    const live = new Corpus();
    const words = [
      'screen',
      'screens',
      'screenshot',
      'screenshots',
      'screenshotting',
      'scree',
      'screed',
      'scr',
    ];
    live.add([analyzeTool({ name: 'a', description: words.join(' ') }, 0)]);
    const terms = new Vocabulary(live);
    const reference = (word: string, term: string, max: number) => {
      const all = new Set([...terms.completions(word, max), ...terms.completions(term, max)]);
      all.delete(term);
      return [...all].sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).slice(0, max);
    };
    for (const [word, term] of [
      ['screens', 'screen'],
      ['screen', 'screen'],
      ['scree', 'scre'],
      ['screenshots', 'screenshot'],
      ['scr', 'sc'],
    ] as const) {
      for (const max of [1, 2, 3, 30])
        expect(terms.shortestCompletions(word, term, max)).toEqual(reference(word, term, max));
    }
    expect(terms.shortestCompletions('scree', 'scree', 30)).not.toContain('scree');
  });

  it('offers every term within the edit budget as a candidate', () => {
    expect(vocabulary.candidates('wether', 1)).toContain('weather');
    expect(vocabulary.candidates('wether', 1)).not.toContain('stock');
  });

  it('refreshes after the corpus changes', () => {
    corpus.add([analyzeTool({ name: 'forecastbot', description: 'x' }, 3)]);
    expect(vocabulary.completions('forec', 10)).toEqual(['forecast', 'forecastbot']);
  });

  it('updates incrementally to exactly what a rebuild would hold', () => {
    const live = new Corpus();
    const incremental = new Vocabulary(live);
    const more = [
      analyzeTool({ name: 'forecastbot', description: 'Weather bot.' }, 3),
      analyzeTool({ name: 'wetter', description: 'Wetter vorhersage.' }, 4),
    ];
    live.add(docs);
    incremental.completions('', 1); // built
    live.add(more);
    live.remove([docs[0]!, more[1]!]);
    const rebuilt = new Vocabulary(live);
    expect(incremental.completions('', 1000)).toEqual(rebuilt.completions('', 1000));
    expect(incremental.completions('', 1000)).toContain('forecastbot');
    expect(incremental.completions('', 1000)).not.toContain('wetter');
    expect(incremental.candidates('wether', 1).sort()).toEqual(rebuilt.candidates('wether', 1).sort());
  });

  it('stays sorted when new terms arrive one add() at a time or many at once', () => {
    const live = new Corpus();
    const incremental = new Vocabulary(live);
    live.add(docs);
    incremental.completions('', 1); // built
    for (let i = 0; i < 30; i++) {
      const tool = {
        name: `tool${String.fromCharCode(122 - i)}x${i}`,
        description: `zeta${i} alpha${i} m${i}`,
      };
      live.add([analyzeTool(tool, 10 + i)]);
      incremental.completions('', 1); // a few new terms each time: spliced in
    }
    const bulk = Array.from({ length: 100 }, (_, i) =>
      analyzeTool({ name: `bulk_${i}_q`, description: `w${i}z` }, 100 + i),
    );
    live.add(bulk); // many at once: merged
    const all = incremental.completions('', 100_000);
    expect(all).toEqual(new Vocabulary(live).completions('', 100_000));
    expect(all).toEqual([...all].sort());
    expect(all).toContain('zeta29');
  });
});

/** The best `limit` hits by bestOf (positions into the arrays it is given), as hit objects. */
function topHits<T extends { id: number; score: number }>(hits: T[], limit: number): T[] {
  const positions = bestOf(
    Int32Array.from(hits, (hit) => hit.id),
    Float64Array.from(hits, (hit) => hit.score),
    hits.length,
    limit,
  );
  return positions.map((i) => hits[i]!);
}

describe('top-k', () => {
  it('the selection equals a full sort, ties by id', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const hits = Array.from({ length: 2000 }, (_, id) => ({ id, score: Math.round(random() * 50) }));
    const sorted = [...hits].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, 25);
    expect(topHits([...hits], 25)).toEqual(sorted);
    const scores = new Scores(16);
    for (const hit of [...hits].reverse()) scores.add(hit.id, hit.score);
    expect(scores.top(25)).toEqual(sorted); // fed in another order
  });

  it('selects from runs, plateaus and ties at the cut alike, and keeps the hit objects', () => {
    const shapes: Record<string, (i: number) => number> = {
      ascending: (i) => i + 1,
      descending: (i) => 1000 - i,
      constant: () => 7,
      plateau: (i) => (i < 990 ? 3 : 5), // ten above the cut, the rest tied at it
      sawtooth: (i) => (i % 17) + 1,
    };
    for (const [shape, scoreOf] of Object.entries(shapes)) {
      const hits = Array.from({ length: 1000 }, (_, i) => ({
        id: 1000 - i,
        score: scoreOf(i),
        matched: [shape],
      }));
      const expected = [...hits].sort((a, b) => b.score - a.score || a.id - b.id);
      for (const limit of [0, 1, 15, 999, 1000, 1200]) {
        const top = topHits([...hits], limit);
        expect(top, `${shape} ${limit}`).toEqual(expected.slice(0, limit));
        const scores = new Scores(16);
        for (const hit of hits) scores.add(hit.id, hit.score);
        expect(scores.top(limit)).toEqual(expected.slice(0, limit).map(({ id, score }) => ({ id, score })));
      }
    }
  });

  it('equals a full sort whatever the spread of the scores (the selection first narrows to a guess at the cut)', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const spreads: Record<string, (i: number, n: number) => number> = {
      // BM25-like: most scores low, a long thin tail of high ones.
      tail: () => -Math.log(1 - random() * 0.999),
      negative: () => random() * 2 - 1,
      // Nearly every score in the top bucket, a few far below.
      clustered: (i) => (i % 50 === 0 ? 0 : 1000 + random() * 1e-9),
      // Ties at the cut inside one bucket, and the rest spread below.
      tiedAtCut: (i) => (i < 40 ? 5 : i < 400 ? 4 : random() * 3),
      // Ranges too wide to scale, and infinities: the selection alone.
      huge: () => (random() - 0.5) * 1.7e308,
      infinite: (i) => (i === 3 ? Number.POSITIVE_INFINITY : i === 9 ? Number.NEGATIVE_INFINITY : random()),
      tiny: () => 1 + random() * 1e-300,
      // High exactly where 128 evenly spaced scores are read: a guess too high for a top 200.
      sampledHigh: (i, n) =>
        Math.floor(Math.ceil((i * 128) / n) * (n / 128)) === i ? 100 + random() : random(),
    };
    for (const [spread, scoreOf] of Object.entries(spreads)) {
      for (const n of [101, 400, 1000, 5000]) {
        const hits = Array.from({ length: n }, (_, i) => ({
          id: (i * 7919) % 100_003,
          score: scoreOf(i, n),
        }));
        const expected = [...hits].sort((a, b) => b.score - a.score || a.id - b.id);
        for (const limit of [1, 10, 100, 200]) {
          expect(topHits([...hits], limit), `${spread} n=${n} limit=${limit}`).toEqual(
            expected.slice(0, limit),
          );
        }
      }
    }
  });

  it('Scores copies its documents and scores in first-touched order, after what is there', () => {
    const scores = new Scores(4);
    scores.add(7, 1);
    scores.add(2, 0.5);
    scores.add(7, 2);
    scores.add(40, 4); // past the capacity: the array grows
    const { ids, scores: values } = candidates(5);
    ids[0] = 99;
    values[0] = 9;
    expect(scores.copyTo(ids, values, 1)).toBe(4);
    expect([...ids.subarray(0, 4)]).toEqual([99, 7, 2, 40]);
    expect([...values.subarray(0, 4)]).toEqual([9, 3, 0.5, 4]);
    // With a floor: only the documents scoring at least it (ties at it kept), still in first-touched order.
    expect(scores.copyTo(ids, values, 1, 3)).toBe(3);
    expect([...ids.subarray(0, 3)]).toEqual([99, 7, 40]);
    expect([...values.subarray(0, 3)]).toEqual([9, 3, 4]);
    expect(candidates(100_000).ids.length).toBeGreaterThanOrEqual(100_000);
    scores.release();
    const reused = new Scores(4); // the released (grown) arrays, zeroed where they were written
    expect([reused.size, reused.get(7), reused.get(40)]).toEqual([0, 0, 0]);
    reused.add(40, 1);
    expect(reused.best(5)).toEqual([{ id: 40, score: 1 }]);
  });

  it('Scores keeps only positive evidence and reports each document once', () => {
    const scores = new Scores(4);
    scores.add(9, 1);
    scores.add(9, 2);
    scores.add(1, 0);
    scores.add(2, -1);
    expect(scores.size).toBe(1);
    expect(scores.top(10)).toEqual([{ id: 9, score: 3 }]);
    expect(scores.size).toBe(0); // top() hands the array back
  });

  it('Scores reuses released arrays only once they are zeroed again', () => {
    for (let round = 0; round < 20; round++) {
      const scores = new Scores(64);
      for (let id = 0; id < 64; id++) expect(scores.get(id)).toBe(0);
      scores.add(round % 64, 1);
      scores.add(63, 2);
      if (round % 2 === 0) scores.top(3);
      else scores.release();
    }
  });

  it('lets a tool nobody used count its description again, by the share of tools with learned requests', () => {
    const tools = [
      { name: 'weather', description: 'Weather forecast for a city.' },
      { name: 'city_info', description: 'Facts about a city: population, area.' },
      { name: 'stocks', description: 'Stock quotes.' },
    ];
    const learned = (n: number) =>
      tools.map((tool, id) =>
        analyzeTool(tool, id, id > 0 && id <= n ? { learned: ['weekend', 'plan'] } : {}),
      );
    const scoreOf = (corpusDocs: ReturnType<typeof learned>) => {
      const corpus = new Corpus();
      corpus.add(corpusDocs);
      return corpus.bm25f([{ term: 'forecast', weight: 1 }], undefined, 'natural').get(0);
    };
    const none = scoreOf(learned(0));
    const one = scoreOf(learned(1));
    const two = scoreOf(learned(2));
    expect(one).toBeGreaterThan(none);
    expect(two).toBeGreaterThan(one);
    // Removing the learned documents takes their share back.
    const corpus = new Corpus();
    const all = learned(2);
    corpus.add(all);
    corpus.remove(all.slice(1));
    corpus.add(learned(0).slice(1));
    expect(corpus.bm25f([{ term: 'forecast', weight: 1 }], undefined, 'natural').get(0)).toBeCloseTo(
      none,
      12,
    );
  });
});
