/**
 * Phrasings written by a model: asks an OpenAI-compatible chat endpoint
 * (`POST {endpoint}/chat/completions`: a local Ollama, llama.cpp server or
 * vLLM, or a hosted one) to write 8-12 everyday requests per tool, as people
 * would say them. Answers are parsed and validated strictly (bounded size,
 * strings of sane length, de-duplicated), cached by the tool's content hash so
 * an unchanged tool is never asked about twice, and requests run with a
 * per-request timeout, retries with exponential backoff and a concurrency limit.
 *
 * The API key comes from the caller (the CLI and the gateway read it from the
 * environment); it is sent as a bearer token and never logged or cached.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ENRICH_DEFAULTS } from './defaults.js';
import { defaultCacheDir } from './embedding/disk-cache.js';
import { ToolSearchError } from './errors.js';
import type { ToolDefinition } from './types.js';

// Its settings and bounds live with every other default.
export { ENRICH_DEFAULTS } from './defaults.js';

/** Bump when the prompt changes: cached phrasings of another prompt are not reused. */
const PROMPT_VERSION = 1;

export interface EnrichOptions {
  /** Base URL of an OpenAI-compatible API (".../v1"), or its full ".../chat/completions" URL. */
  endpoint: string;
  model: string;
  /** Bearer token; from the environment, never a flag. */
  apiKey?: string;
  concurrency?: number;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  /** Cache directory (an `enrich/` folder is made in it); false: no cache. Default defaultCacheDir(). */
  cacheDir?: string | false;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Called as each tool is done (from the cache or the endpoint). */
  onResult?: (name: string, phrasings: string[], fromCache: boolean) => void;
  onProgress?: (progress: EnrichProgress) => void;
}

export interface EnrichProgress {
  done: number;
  total: number;
  cached: number;
  failed: number;
}

export interface EnrichFailure {
  name: string;
  code: string;
  message: string;
}

export interface EnrichReport {
  /** Phrasings per tool name, for every tool that got them. */
  phrasings: Map<string, string[]>;
  failed: EnrichFailure[];
  cached: number;
  requested: number;
}

/** The chat-completions URL of an endpoint setting; INVALID_OPTION when it is not http(s). */
export function chatCompletionsUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ToolSearchError('INVALID_OPTION', `toolsearch enrich: endpoint "${endpoint}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolSearchError(
      'INVALID_OPTION',
      `toolsearch enrich: endpoint must be http(s), got ${url.protocol}`,
    );
  if (/\/chat\/completions\/?$/.test(url.pathname)) return url.toString();
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return url.toString();
}

/** The cache key of a tool for a model: what the tool is (name, description, schema), not where it is listed. */
export function enrichKey(tool: ToolDefinition, model: string): string {
  const content = JSON.stringify([
    PROMPT_VERSION,
    model,
    tool.name,
    tool.description ?? '',
    tool.inputSchema ?? {},
  ]);
  return createHash('sha256').update(content).digest('hex').slice(0, 32);
}

/** Enriches every tool; a tool that fails is reported in `failed`, never thrown. */
export async function enrichTools(
  tools: readonly ToolDefinition[],
  options: EnrichOptions,
): Promise<EnrichReport> {
  const settings = resolve(options);
  if (tools.length > ENRICH_DEFAULTS.maxTools)
    throw new ToolSearchError(
      'INVALID_OPTION',
      `toolsearch enrich: at most ${ENRICH_DEFAULTS.maxTools} tools per run`,
    );
  const report: EnrichReport = { phrasings: new Map(), failed: [], cached: 0, requested: 0 };
  let done = 0;
  const progress = () =>
    options.onProgress?.({ done, total: tools.length, cached: report.cached, failed: report.failed.length });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tools.length) {
      if (options.signal?.aborted) return;
      const tool = tools[next++]!;
      const key = enrichKey(tool, options.model);
      try {
        let phrasings = await readCache(settings.cacheDir, key);
        const fromCache = phrasings !== undefined;
        if (phrasings) report.cached++;
        else {
          report.requested++;
          phrasings = await askWithRetries(tool, settings, options);
          await writeCache(settings.cacheDir, key, phrasings);
        }
        report.phrasings.set(tool.name, phrasings);
        options.onResult?.(tool.name, phrasings, fromCache);
      } catch (err) {
        const e = err as ToolSearchError;
        report.failed.push({ name: tool.name, code: e.code ?? 'ENRICH_FAILED', message: e.message });
      }
      done++;
      progress();
    }
  };
  await Promise.all(Array.from({ length: Math.min(settings.concurrency, tools.length) }, worker));
  return report;
}

interface Settings {
  url: string;
  concurrency: number;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  cacheDir: string | undefined;
}

function resolve(options: EnrichOptions): Settings {
  if (typeof options.model !== 'string' || options.model.trim() === '')
    throw new ToolSearchError('INVALID_OPTION', 'toolsearch enrich: model must be a non-empty string');
  const int = (value: number | undefined, name: string, fallback: number, min: number) => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < min)
      throw new ToolSearchError('INVALID_OPTION', `toolsearch enrich: ${name} must be an integer >= ${min}`);
    return value;
  };
  return {
    url: chatCompletionsUrl(options.endpoint),
    concurrency: Math.min(
      int(options.concurrency, 'concurrency', ENRICH_DEFAULTS.concurrency, 1),
      ENRICH_DEFAULTS.maxConcurrency,
    ),
    timeoutMs: int(options.timeoutMs, 'timeoutMs', ENRICH_DEFAULTS.timeoutMs, 1),
    retries: Math.min(
      int(options.retries, 'retries', ENRICH_DEFAULTS.retries, 0),
      ENRICH_DEFAULTS.maxRetries,
    ),
    backoffMs: int(options.backoffMs, 'backoffMs', ENRICH_DEFAULTS.backoffMs, 0),
    cacheDir:
      options.cacheDir === false
        ? undefined
        : join(options.cacheDir ?? defaultCacheDir(options.env), 'enrich'),
  };
}

/** The prompt: what the tool does and its parameters, and what we want back. */
export function enrichMessages(tool: ToolDefinition): { role: 'system' | 'user'; content: string }[] {
  const params = Object.keys(tool.inputSchema?.properties ?? {}).slice(0, ENRICH_DEFAULTS.maxParams);
  return [
    {
      role: 'system',
      content:
        'You write the requests people type to an assistant. Everyday words, the way a non-expert says it; ' +
        'avoid the tool name and its technical vocabulary. Vary length and wording; a few may name the app ' +
        'or service. Answer with a JSON array of strings only.',
    },
    {
      role: 'user',
      content: [
        `Tool: ${tool.name}`,
        tool.title ? `Title: ${tool.title}` : '',
        `Description: ${(tool.description ?? '').slice(0, ENRICH_DEFAULTS.maxDescriptionChars)}`,
        params.length > 0 ? `Parameters: ${params.join(', ')}` : '',
        `Write ${ENRICH_DEFAULTS.minPhrasings} to ${ENRICH_DEFAULTS.maxPhrasings} different requests this tool answers.`,
      ]
        .filter(Boolean)
        .join('\n'),
    },
  ];
}

/** A retryable failure (timeout, 429, 5xx, malformed answer) as opposed to one that will not change. */
class Attempt extends ToolSearchError {
  constructor(
    code: 'ENRICH_FAILED' | 'ENRICH_BAD_ANSWER',
    message: string,
    readonly retryable: boolean,
  ) {
    super(code, message);
  }
}

async function askWithRetries(
  tool: ToolDefinition,
  settings: Settings,
  options: EnrichOptions,
): Promise<string[]> {
  let last: Attempt | undefined;
  for (let attempt = 0; attempt <= settings.retries; attempt++) {
    if (attempt > 0) await sleep(settings.backoffMs * 2 ** (attempt - 1), options.signal);
    try {
      return await ask(tool, settings, options);
    } catch (err) {
      if (!(err instanceof Attempt)) throw err;
      last = err;
      if (!err.retryable || options.signal?.aborted) break;
    }
  }
  throw new ToolSearchError(
    last?.code ?? 'ENRICH_FAILED',
    `toolsearch enrich: ${tool.name}: ${last?.message ?? 'aborted'}${settings.retries > 0 ? ` (after ${settings.retries + 1} attempts)` : ''}`,
  );
}

async function ask(tool: ToolDefinition, settings: Settings, options: EnrichOptions): Promise<string[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort);
  try {
    let response: Response;
    try {
      response = await fetch(settings.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: options.model,
          messages: enrichMessages(tool),
          temperature: ENRICH_DEFAULTS.temperature,
        }),
        signal: controller.signal,
      });
    } catch (err) {
      const timedOut = controller.signal.aborted && !options.signal?.aborted;
      throw new Attempt(
        'ENRICH_FAILED',
        timedOut ? `no answer within ${settings.timeoutMs} ms` : `request failed: ${(err as Error).message}`,
        true,
      );
    }
    const body = await readLimited(response, controller.signal, settings.timeoutMs);
    if (!response.ok)
      throw new Attempt(
        'ENRICH_FAILED',
        `endpoint answered HTTP ${response.status}`,
        response.status === 429 || response.status >= 500,
      );
    return parseAnswer(body);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

async function readLimited(response: Response, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > ENRICH_DEFAULTS.maxAnswerBytes) {
        await reader.cancel().catch(() => {});
        throw new Attempt(
          'ENRICH_BAD_ANSWER',
          `answer larger than ${ENRICH_DEFAULTS.maxAnswerBytes} bytes`,
          false,
        );
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof Attempt) throw err;
    throw new Attempt(
      'ENRICH_FAILED',
      signal.aborted ? `no answer within ${timeoutMs} ms` : `answer cut off: ${(err as Error).message}`,
      true,
    );
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The phrasings in a chat-completions answer: the first JSON array of strings
 * in the message (models wrap it in prose or code fences), cleaned, bounded
 * and de-duplicated. Fewer than ENRICH_DEFAULTS.minValid is malformed.
 */
export function parseAnswer(body: string): string[] {
  let content: unknown;
  try {
    content = (JSON.parse(body) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message
      ?.content;
  } catch {
    throw new Attempt('ENRICH_BAD_ANSWER', 'answer is not chat-completions JSON', true);
  }
  if (typeof content !== 'string')
    throw new Attempt('ENRICH_BAD_ANSWER', 'answer has no message content', true);
  const start = content.indexOf('[');
  const end = content.lastIndexOf(']');
  let list: unknown;
  try {
    list = start >= 0 && end > start ? JSON.parse(content.slice(start, end + 1)) : undefined;
  } catch {
    list = undefined;
  }
  if (!Array.isArray(list))
    throw new Attempt('ENRICH_BAD_ANSWER', 'message holds no JSON array of phrasings', true);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of list) {
    if (typeof item !== 'string') continue;
    const text = item.replace(/\s+/g, ' ').trim();
    const key = text.toLowerCase();
    if (text.length < ENRICH_DEFAULTS.minChars || text.length > ENRICH_DEFAULTS.maxChars || seen.has(key))
      continue;
    seen.add(key);
    out.push(text);
    if (out.length >= ENRICH_DEFAULTS.maxPhrasings) break;
  }
  if (out.length < ENRICH_DEFAULTS.minValid)
    throw new Attempt(
      'ENRICH_BAD_ANSWER',
      `only ${out.length} usable phrasings (need ${ENRICH_DEFAULTS.minValid})`,
      true,
    );
  return out;
}

async function readCache(dir: string | undefined, key: string): Promise<string[] | undefined> {
  if (!dir) return undefined;
  try {
    const json = JSON.parse(await readFile(join(dir, `${key}.json`), 'utf8')) as { phrasings?: unknown };
    const list = json.phrasings;
    if (Array.isArray(list) && list.length > 0 && list.every((p) => typeof p === 'string'))
      return list as string[];
  } catch {
    // missing or unreadable: ask again
  }
  return undefined;
}

async function writeCache(dir: string | undefined, key: string, phrasings: string[]): Promise<void> {
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${key}.json`);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, JSON.stringify({ phrasings }));
    await rename(temp, file);
  } catch {
    await rm(temp, { force: true }); // a cache that cannot be written costs a request next time, nothing more
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
