// `model: <hub id>` downloads through the hub protocol and caches, tested against a
// hub mirror on 127.0.0.1 that serves the bundled model (no network beyond loopback).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeTool } from '../src/analysis/document.js';
import { createEmbeddingRetriever, DEFAULT_MODEL_PATH } from '../src/embedding/index.js';
import { TransformersEmbedder } from '../src/embedding/transformers-embedder.js';

const MODEL_ID = 'toolsearch-test/mirrored-model';
const scratch = mkdtempSync(join(tmpdir(), 'toolsearch-hub-'));
const requests: string[] = [];
let server: Server;
let host = '';

/** Serves DEFAULT_MODEL_PATH as `/<MODEL_ID>/resolve/main/<file>`, the hub's layout; 404 otherwise. */
beforeAll(async () => {
  server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const prefix = `/${MODEL_ID}/resolve/main/`;
    const file = path.startsWith(prefix) ? normalize(path.slice(prefix.length)) : '';
    const full = join(DEFAULT_MODEL_PATH, file);
    if (!file || file.startsWith('..') || !existsSync(full) || file.endsWith('/')) {
      response.writeHead(404).end('not found');
      return;
    }
    const body = readFileSync(full);
    response.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

describe('a hub model id', () => {
  const docs = [
    analyzeTool({ name: 'weather__forecast', description: 'Weather forecast for a city' }, 0),
    analyzeTool({ name: 'mail__send_email', description: 'Send an email message' }, 1),
  ];

  it('is downloaded from modelHost, cached, and then loads with the mirror gone', async () => {
    const cacheDir = join(scratch, 'cache');
    const warnings: string[] = [];
    const first = createEmbeddingRetriever({
      model: MODEL_ID,
      modelHost: host,
      cacheDir,
      env: {},
      onWarning: (w) => warnings.push(w),
    });
    first.add(docs);
    await first.ready();
    expect(warnings).toEqual([]);
    expect(first.status()).toBe('ready');
    expect(requests.some((path) => path.endsWith('/onnx/model_quantized.onnx'))).toBe(true);

    // The vectors are the bundled model's: the same files, fetched over the hub protocol.
    const bundled = new TransformersEmbedder({
      source: { kind: 'path', path: DEFAULT_MODEL_PATH, bundled: true },
    });
    const mirrored = new TransformersEmbedder({
      source: { kind: 'hub', model: MODEL_ID },
      remoteHost: host,
      modelCacheDir: join(cacheDir, 'models'),
    });
    const [a] = await bundled.embed(['weather in paris'], 'query');
    const [b] = await mirrored.embed(['weather in paris'], 'query');
    expect([...b!]).toEqual([...a!]);

    // Offline now: the cached download is enough.
    const before = requests.length;
    const second = createEmbeddingRetriever({
      model: MODEL_ID,
      modelHost: 'http://127.0.0.1:9/',
      allowRemoteModels: false,
      cacheDir,
      env: {},
      onWarning: (w) => warnings.push(w),
    });
    second.add(docs);
    await second.ready();
    expect(warnings).toEqual([]);
    expect(second.status()).toBe('ready');
    expect(requests.length).toBe(before);
  });

  it('takes the mirror from HF_ENDPOINT when no modelHost is given', async () => {
    const before = requests.length;
    const retriever = createEmbeddingRetriever({
      model: MODEL_ID,
      cacheDir: join(scratch, 'env-cache'),
      env: { HF_ENDPOINT: host },
    });
    retriever.add(docs);
    await retriever.ready();
    expect(retriever.status()).toBe('ready');
    expect(requests.length).toBeGreaterThan(before);
  });

  it('a model host that is not an http(s) URL degrades with one warning naming it', async () => {
    const warnings: string[] = [];
    const retriever = createEmbeddingRetriever({
      model: MODEL_ID,
      modelHost: 'ftp://mirror',
      cacheDir: false,
      env: {},
      onWarning: (w) => warnings.push(w),
    });
    await retriever.ready();
    expect(retriever.status()).toBe('unavailable');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('model host must be an http(s) URL, got "ftp://mirror"');
  });
});
