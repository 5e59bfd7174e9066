import { describe, expect, it } from 'vitest';
import { AnalysisMemo, SEPARATOR } from '../src/analysis/analyze.js';
import { normalizeText } from '../src/analysis/normalize.js';
import { stem } from '../src/analysis/stem.js';
import { STOP_WORDS } from '../src/analysis/stopwords.js';
import { joinedAsciiWords, RAW_TOKEN, splitWords, tokenize, tokenWords } from '../src/analysis/tokenize.js';
import { countOf, quoteQuery, summarize, toolsetOf } from '../src/index.js';
import {
  analyze,
  analyzeQuery,
  analyzeTool,
  analyzeWords,
  bareName,
  compactKey,
  detectShape,
  serverPrefix,
  splitIdentifier,
} from '../src/internals.js';
import { randomText } from './fuzz-inputs.js';
import { random } from './helpers.js';

describe('splitIdentifier', () => {
  it.each([
    ['browser_takeScreenshot', ['browser', 'take', 'screenshot']],
    ['get-file.contents', ['get', 'file', 'contents']],
    ['server-github__create_issue', ['server', 'github', 'create', 'issue']],
    ['HTTPRequest', ['http', 'request']],
    ['parseJSONBody', ['parse', 'json', 'body']],
    ['@scope/pkg-name', ['scope', 'pkg', 'name']],
    ['uploadToS3', ['upload', 'to', 's3']],
    ['  __weird__  ', ['weird']],
    ['', []],
  ])('%s', (input, words) => {
    expect(splitIdentifier(input)).toEqual(words);
  });

  it('finds server prefix and bare name of server__tool names', () => {
    expect(bareName('server-github__create_issue')).toBe('create_issue');
    expect(serverPrefix('server-github__create_issue')).toBe('server-github');
    expect(bareName('plain_name')).toBe('plain_name');
    expect(serverPrefix('plain_name')).toBeUndefined();
  });

  it('compacts any case style to the same key', () => {
    const key = compactKey('server_github__createIssue');
    expect(compactKey('Server-GitHub create_issue')).toBe(key);
    expect(compactKey('SERVER GITHUB CREATE ISSUE')).toBe(key);
  });
});

describe('tokenize and analyze', () => {
  it('splits identifiers inside prose and keeps the joined form of camelCase', () => {
    expect(tokenize('call list_pages on GitHub')).toEqual([
      'call',
      'list',
      'pages',
      'on',
      'git',
      'hub',
      'github',
    ]);
  });

  it('splits joined ASCII tokens by a loop exactly as by the identifier rules', () => {
    const examples = [
      'file.',
      'e.g.',
      'user_id',
      "'events'",
      'https://x.io/a-b',
      'Paris.',
      "user's",
      "don't",
    ];
    for (const token of examples) {
      expect(joinedAsciiWords(token), token).toBeDefined();
      expect(joinedAsciiWords(token), token).toEqual(splitWords(token));
    }
    // Left to the identifier rules: a case boundary inside a word, other characters.
    for (const token of ['fooBar', 'ID.', "a'B", 'x2Y', 'über.', 'a’s'])
      expect(joinedAsciiWords(token)).toBeUndefined();
    const next = random(11);
    const alphabet = "abzAZ09_-./:@''sS’é";
    let fast = 0;
    for (let n = 0; n < 20_000; n++) {
      let token = '';
      const length = 1 + Math.floor(next() * 9);
      for (let i = 0; i < length; i++) token += alphabet[Math.floor(next() * alphabet.length)];
      const words = joinedAsciiWords(token);
      if (words === undefined) continue;
      fast++;
      expect(words, token).toEqual(splitWords(token));
    }
    expect(fast).toBeGreaterThan(2_000);
  });

  it('removes stop words and stems', () => {
    expect(analyze('Searching the repositories for open issues')).toEqual([
      'search',
      'repositori',
      'open',
      'issu',
    ]);
  });

  it('keeps intent words that generic stop lists drop', () => {
    expect(analyzeWords('move the first file up')).toEqual(['move', 'first', 'file', 'up']);
  });

  it('normalises Unicode compatibility forms (NFKC) and case', () => {
    expect(analyze('ＦＩＬＥ ﬁles')).toEqual(['file', 'file']);
  });

  it('treats possessives and contractions as one word', () => {
    expect(analyzeWords("the user's repo doesn't exist")).toEqual(['user', 'repo', 'doesnt', 'exist']);
  });

  it('truncates very long text instead of failing', () => {
    const long = 'alpha '.repeat(100_000);
    const terms = analyze(long, 600);
    expect(terms.length).toBe(100);
    expect(new Set(terms)).toEqual(new Set(['alpha']));
  });

  // analyze() splits printable ASCII with its own loop and anything else with a regular
  // expression, and skips normalizeText's whitespace collapsing: neither may change a term.
  it('gives the same terms on its ASCII and Unicode paths, with or without whitespace normalised', () => {
    const next = random(5);
    const pieces = [
      'a',
      'Z',
      '7',
      '_',
      '-',
      '.',
      "'",
      '@',
      '/',
      ':',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r',
      ',',
      '(',
      '"',
      '~',
    ];
    for (let i = 0; i < 500; i++) {
      let text = '';
      const length = Math.floor(next() * 60);
      for (let j = 0; j < length; j++) text += pieces[Math.floor(next() * pieces.length)];
      const terms = analyze(text);
      // A trailing non-ASCII word sends the whole text down the Unicode path.
      expect(analyze(`${text} é`), JSON.stringify(text)).toEqual([...terms, 'é']);
      expect(analyze(normalizeText(text)), JSON.stringify(text)).toEqual(terms);
    }
    expect(analyze('Get\tthe\r\nREADME.md  from  user/repo')).toEqual(['readm', 'md', 'user', 'repo']);
  });

  // tokenize() and normalizeText() take loops over character codes on printable ASCII (a
  // query) and regular expressions elsewhere: the loops must give what the expressions give.
  it('tokenizes and normalises ASCII text exactly as its regular expressions do', () => {
    const next = random(7);
    const pieces = ['a', 'Z', 'q', '7', '_', '-', '.', "'", '@', '/', ':', ' ', '  ', '\t', '\n', '\r', '\v'];
    const texts = [' lead', 'trail ', 'a  b', '', ' ', 'x-', '-x', 'a.-b', "a'", "user's", '\u007f', 'é'];
    for (let i = 0; i < 600; i++) {
      let text = '';
      const length = Math.floor(next() * 40);
      for (let j = 0; j < length; j++) {
        text +=
          next() < 0.1
            ? String.fromCharCode(Math.floor(next() * 0x80))
            : pieces[Math.floor(next() * pieces.length)];
      }
      texts.push(text);
    }
    for (const text of texts) {
      const words = [...text.matchAll(RAW_TOKEN)].flatMap((match) => tokenWords(match[0]));
      expect(tokenize(text), JSON.stringify(text)).toEqual(words);
      const folded = /[^\t\n\r -~]/u.test(text) ? text.normalize('NFKC') : text;
      expect(normalizeText(text), JSON.stringify(text)).toBe(folded.replace(/\s+/gu, ' ').trim());
    }
  });

  it('splits any Unicode text where SEPARATOR matches (surrogate pairs whole, lone surrogates apart)', () => {
    const next = random(6);
    const texts = ['𝐀𝐁c d\ud800e \udc00f 𠀀x’s ﬁ\u0301 ١٢٣ ǅungla 😀go'];
    for (let i = 0; i < 300; i++) texts.push(randomText(next, 1 + Math.floor(next() * 200)));
    for (const text of texts) {
      const tokens = text.normalize('NFKC').split(SEPARATOR);
      const expected = tokens.flatMap((token) =>
        (token === '' ? [] : tokenWords(token)).filter((word) => !STOP_WORDS.has(word)).map(stem),
      );
      expect(analyze(text), JSON.stringify(text)).toEqual(expected);
    }
  });
});

describe('query shape', () => {
  it.each([
    ['takeScreenshot', 'identifier'],
    ['get_file_contants', 'identifier'],
    ['server-github create_issue', 'identifier'],
    ['send-email', 'identifier'],
    ['math.factorial', 'identifier'],
    ['github issue', 'keywords'],
    ['weather', 'keywords'],
    ['screenshoot the page', 'keywords'],
    ['how do i go', 'natural'],
    ['how do I take a screenshot of this page', 'natural'],
    ['find open pull requests in my repository and label them', 'natural'],
  ])('%s -> %s', (query, shape) => {
    expect(detectShape(query)).toBe(shape);
  });

  it('bounds a pasted document and keeps words and terms aligned', () => {
    const query = analyzeQuery(`Find ${'file '.repeat(5000)}`);
    expect(query.normalized.length).toBeLessThanOrEqual(1000);
    expect(query.terms.length).toBe(query.words.length);
  });

  it.each([
    'Ｔａｋｅ　a ﬁle screenshot',
    '  getUserProfile\tfor\n\nuser_id 42 ',
    "don't list the repo's open_issues",
    `${'é'.repeat(999)}x tail`,
  ])('derives words, terms and shape from one normalisation, as a document text is analysed: %s', (text) => {
    const query = analyzeQuery(text);
    expect(query.words).toEqual(analyzeWords(text, 1000));
    expect(query.terms).toEqual(analyze(text, 1000));
    expect(query.shape).toBe(detectShape(query.raw.normalize('NFKC').replace(/\s+/gu, ' ').trim()));
  });
});

describe('quoteQuery and countOf', () => {
  it('quotes a short query whole, flattened, and cuts a long one at 80 characters', () => {
    expect(quoteQuery('send  an\nemail')).toBe('"send an email"');
    expect(quoteQuery('x'.repeat(80))).toBe(`"${'x'.repeat(80)}"`);
    expect(quoteQuery('x'.repeat(200_000))).toBe(`"${'x'.repeat(80)}…"`);
    // Cut by characters, not UTF-16 units: an emoji is never split.
    expect(quoteQuery('😀'.repeat(100))).toBe(`"${'😀'.repeat(80)}…"`);
    // Whitespace past the scanned head still counts as a cut.
    expect(quoteQuery(`short${' '.repeat(1000)}tail`)).toBe('"short…"');
  });

  it('puts a count with its noun', () => {
    expect([0, 1, 2].map((n) => countOf(n, 'hit'))).toEqual(['0 hits', '1 hit', '2 hits']);
  });
});

describe('summarize', () => {
  it('takes the first sentence', () => {
    expect(summarize('Clicks on the provided element. Then waits.')).toBe('Clicks on the provided element.');
  });

  it('cuts long sentences at a word boundary with an ellipsis, within 80 chars', () => {
    const summary = summarize(
      'Search the web for the given query and return the most relevant pages with their titles and snippets for the model',
    );
    expect(summary.length).toBeLessThanOrEqual(80);
    expect(summary.endsWith('…')).toBe(true);
    expect(summary).toBe('Search the web for the given query and return the most relevant pages with…');
  });

  it('flattens markdown and whitespace and tolerates empty input', () => {
    expect(summarize('\n**Scrape** content from a `single` URL.\n\nMore.')).toBe(
      'Scrape content from a single URL.',
    );
    expect(summarize(undefined)).toBe('');
    expect(summarize('')).toBe('');
  });
});

describe('analyzeTool', () => {
  const tool = {
    name: 'server-github__create_issue',
    description: 'Create a new issue in a GitHub repository',
    inputSchema: {
      type: 'object',
      properties: { owner: { type: 'string', description: 'Repository owner' }, labels: { type: 'array' } },
    },
    tags: ['tracker'],
  };

  it('fills every field from the definition', () => {
    const doc = analyzeTool(tool, 7);
    expect(doc.id).toBe(7);
    expect(doc.toolset).toBe('server-github');
    expect(doc.fields.name).toEqual(['creat', 'issu']);
    expect(doc.fields.toolset).toEqual(['server', 'github']);
    expect(doc.fields.tags).toEqual(['tracker']);
    expect(doc.fields.schema).toEqual(['owner', 'repositori', 'owner', 'label']);
    expect(doc.fields.description).toContain('repositori');
    expect(doc.nameWords).toEqual(['create', 'issue']);
    expect(doc.embeddingText).toContain('create issue');
  });

  it('gives tools matched to one pack entry in one add the phrasings a tool analysed alone gets', () => {
    const memo = new AnalysisMemo();
    const packA = ['open an issue', 'Open  an issue', 'file a bug'];
    const packB = ['list my issues'];
    const alone = (extra: Parameters<typeof analyzeTool>[2]) =>
      analyzeTool(tool, 1, extra, new AnalysisMemo());
    const cases = [
      { pack: packA },
      { pack: packB },
      { pack: packA },
      { pack: packA, added: ['report a bug'] },
      { pack: packB },
    ];
    for (const extra of cases) {
      const doc = analyzeTool(tool, 1, extra, memo);
      const fresh = alone(extra);
      expect(doc.phrasings).toEqual(fresh.phrasings);
      expect(doc.fields.phrasings).toEqual(fresh.fields.phrasings);
    }
    // The tool's own phrasings still come first when it has some.
    const own = analyzeTool({ ...tool, examples: ['file a bug'] }, 2, { pack: packA }, memo);
    expect(own.phrasings.map((p) => `${p.source}:${p.text}`)).toEqual([
      'tool:file a bug',
      'pack:open an issue',
    ]);
  });

  it('resolves the toolset: toolset, then category, then server prefix, then "default"', () => {
    expect(toolsetOf({ name: 'a__b', toolset: 'explicit', category: 'cat' })).toBe('explicit');
    expect(toolsetOf({ name: 'a__b', category: 'cat' })).toBe('cat');
    expect(toolsetOf({ name: 'a__b', category: null })).toBe('a');
    expect(toolsetOf({ name: 'plain' })).toBe('default');
    // The one rule for every package: split at the last `__`, as bareName and serverPrefix do.
    expect(toolsetOf({ name: 'a__b__c' })).toBe('a__b');
    expect(bareName('a__b__c')).toBe('c');
  });
});
