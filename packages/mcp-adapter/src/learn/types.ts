/**
 * What learning from use keeps: which query led to which tool (a "use"), and
 * which tools were called together in one conversation (a "co-use"). Nothing
 * else is ever stored: no arguments, no results, no session ids.
 */

/** One (query -> tool) pair, as core-search's `engine.learn` takes it. */
export interface LearnedUse {
  query: string;
  tool: string;
  /** How often it happened; default 1. */
  count?: number;
  /** Epoch ms of the latest occurrence; default now. */
  lastSeen?: number;
}

/** Two tools called in the same conversation (names sorted, so a pair has one key). */
export interface CoUse {
  tools: [string, string];
  count?: number;
  lastSeen?: number;
}

/** What a store holds, aggregated: one entry per (query, tool) and per tool pair. */
export interface LearnedState {
  uses: Required<LearnedUse>[];
  together: Required<CoUse>[];
}

/** New events for a store; counts add up, lastSeen keeps the latest. */
export interface LearnEvents {
  uses?: readonly LearnedUse[];
  together?: readonly CoUse[];
}

/**
 * Where learned uses live. The local file store is the default; the Redis
 * store shares them between gateway processes. Implementations bound what they
 * keep (LEARN_LIMITS in defaults.ts) and never throw from `record` for a full or aged store.
 */
export interface UsageStore {
  /** A short description for logs ("file ~/.cache/toolsearch/learned.json", "redis ..."). */
  readonly description: string;
  record(events: LearnEvents): Promise<void>;
  load(): Promise<LearnedState>;
  clear(): Promise<void>;
  close(): Promise<void>;
}
