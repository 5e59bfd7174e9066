/**
 * Conversation handles: what a 2026-07-28 client's conversation has loaded,
 * and which search its next call follows, carried in tool arguments and
 * answers instead of server memory, so that any replica can serve any
 * request. A handle is the SDK v2 `requestState` codec's wire form (HMAC-SHA256
 * over the payload, with an expiry): opaque to the model, small (it names at
 * most MAX_HANDLE_OFFERED offered and maxBoundTools loaded tools, and a
 * truncated query), and refused with INVALID_HANDLE when forged, tampered
 * with, expired or oversized. Signed, not encrypted: it holds tool names and
 * the query, never arguments or results.
 */
import { randomBytes } from 'node:crypto';
import {
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { AdapterError } from './errors.js';
import { MAX_SEARCH_LIMIT } from './meta-tools.js';

/** The environment variable holding the handle key every replica must share. */
export const HANDLE_KEY_ENV = 'TOOLSEARCH_HANDLE_KEY';
/** The SDK codec's minimum key length (HMAC-SHA256 wants 256 bits). */
export const MIN_HANDLE_KEY_BYTES = 32;
/** Handles live as long as a long conversation. */
export const DEFAULT_HANDLE_TTL_SECONDS = 24 * 60 * 60;
/** Longest handle accepted: checked before any decoding, so a huge argument costs nothing. */
export const MAX_HANDLE_CHARS = 8192;
/** Longest query a handle keeps (what a recorder learns from is the start of it). */
export const MAX_HANDLE_QUERY_CHARS = 200;
/** Tools of one search a handle names: a search never offers more. */
export const MAX_HANDLE_OFFERED = MAX_SEARCH_LIMIT;

/** The search a handle follows. */
export interface FollowedSearch {
  query: string;
  /** Tools the search offered, in rank order. */
  offered: string[];
}

/** What a handle carries. */
export interface HandleState {
  search?: FollowedSearch;
  /** Tools the conversation loaded (schemas handed over), least recently loaded first. */
  loaded: string[];
}

/** The wire payload: short keys, since the handle travels in every call. */
interface Payload {
  s?: { q: string; t: string[] };
  l: string[];
}

export interface HandleCodecOptions {
  /** HMAC key, at least 32 bytes. Omitted: a random per-process key (one replica only). */
  key?: string | Uint8Array;
  ttlSeconds?: number;
  /** Cap on loaded tools a handle names (the adapter's maxBoundTools). */
  maxLoaded: number;
}

export class HandleCodec {
  /** True when the key was generated here: handles then verify only in this process. */
  readonly ephemeralKey: boolean;
  private readonly codec: RequestStateCodec<Payload>;
  private readonly maxLoaded: number;

  constructor(options: HandleCodecOptions) {
    this.ephemeralKey = options.key === undefined;
    const key = options.key ?? randomBytes(MIN_HANDLE_KEY_BYTES);
    const bytes = typeof key === 'string' ? Buffer.byteLength(key, 'utf8') : key.byteLength;
    if (bytes < MIN_HANDLE_KEY_BYTES)
      throw new AdapterError(
        'INVALID_CONFIG',
        `handle key (${HANDLE_KEY_ENV} or toolsearch.handleKey) must be at least ${MIN_HANDLE_KEY_BYTES} bytes, got ${bytes}`,
        { field: 'handleKey' },
      );
    this.codec = createRequestStateCodec<Payload>({
      key,
      ttlSeconds: options.ttlSeconds ?? DEFAULT_HANDLE_TTL_SECONDS,
    });
    this.maxLoaded = options.maxLoaded;
  }

  async mint(state: HandleState): Promise<string> {
    const payload: Payload = { l: state.loaded.slice(-this.maxLoaded) };
    if (state.search)
      payload.s = {
        q: truncate(state.search.query, MAX_HANDLE_QUERY_CHARS),
        t: state.search.offered.slice(0, MAX_HANDLE_OFFERED),
      };
    return this.codec.mint(payload);
  }

  /** The state a handle carries; INVALID_HANDLE (details.reason) when it does not verify. */
  async open(handle: string): Promise<HandleState> {
    if (handle.length > MAX_HANDLE_CHARS)
      throw invalid('too-long', `handle is ${handle.length} characters, over ${MAX_HANDLE_CHARS}`);
    let payload: Payload;
    try {
      // No `bind` is configured, so the codec never reads the context.
      payload = await this.codec.verify(handle, {} as ServerContext);
    } catch (err) {
      const reason = err instanceof Error ? err.message : 'malformed';
      throw invalid(reason, reasonText(reason));
    }
    if (!isPayload(payload, this.maxLoaded)) throw invalid('malformed', 'handle content is not a handle');
    return {
      loaded: payload.l,
      ...(payload.s ? { search: { query: payload.s.q, offered: payload.s.t } } : {}),
    };
  }
}

/**
 * The tools of `used` that `search` offered, in `used` order. They are taken
 * out of `search.offered`, so a search followed by a load and then a call of
 * the same tool is reported once.
 */
export function takeFollowed(search: FollowedSearch, used: readonly string[]): string[] {
  const taken = [...new Set(used)].filter((name) => search.offered.includes(name));
  search.offered = search.offered.filter((name) => !taken.includes(name));
  return taken;
}

function invalid(reason: string, message: string): AdapterError {
  return new AdapterError('INVALID_HANDLE', `${message}. Refused; search_tools again for a fresh handle.`, {
    reason,
  });
}

function reasonText(reason: string): string {
  switch (reason) {
    case 'mac':
      return 'handle signature does not verify (forged, altered, or signed with another key)';
    case 'expired':
      return 'handle has expired';
    default:
      return 'handle is malformed';
  }
}

/** A payload a key-holder signed is trusted, but still checked: a bug must not become unbounded work. */
function isPayload(value: unknown, maxLoaded: number): value is Payload {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Partial<Payload>;
  const names = (v: unknown, max: number) =>
    Array.isArray(v) && v.length <= max && v.every((n) => typeof n === 'string');
  if (!names(p.l, maxLoaded)) return false;
  if (p.s === undefined) return true;
  return (
    typeof p.s === 'object' &&
    p.s !== null &&
    typeof p.s.q === 'string' &&
    p.s.q.length <= MAX_HANDLE_QUERY_CHARS &&
    names(p.s.t, MAX_HANDLE_OFFERED)
  );
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}
