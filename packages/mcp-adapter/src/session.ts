/**
 * Per-session state: which tools are bound (visible in `tools/list`) and
 * whether the client follows `notifications/tools/list_changed`.
 *
 * Loaded tools form an LRU list under a cap so a long session cannot grow the
 * tool list back to the size we set out to avoid. Always-loaded tools are
 * outside the cap and never evicted or unloaded.
 */

import { DEFAULT_LIST_CHANGED_WINDOW_MS, DEFAULT_MAX_BOUND_TOOLS } from './defaults.js';
import type { FollowedSearch } from './handles.js';

export type ListChangedSupport = 'unknown' | 'yes' | 'no';

export interface SessionOptions {
  /** Tools bound for the whole session (never evicted, never unloaded). */
  alwaysLoaded?: readonly string[];
  /** Cap on loaded tools, not counting always-loaded ones. Default 40. */
  maxBoundTools?: number;
  /** How long after a list_changed the client may take to re-fetch tools/list. Default 2000 ms. */
  listChangedWindowMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export interface LoadOutcome {
  loaded: string[];
  /** Named but already bound (refreshed as recently used). */
  already: string[];
  /** Evicted, least recently used first, to stay under the cap. */
  evicted: string[];
  /** Not loaded because the request alone exceeds the cap. */
  overCap: string[];
}

export interface UnloadOutcome {
  unloaded: string[];
  /** Always-loaded tools that were named: they stay. */
  kept: string[];
  /** Named but not bound. */
  notLoaded: string[];
}

export class SessionState {
  readonly alwaysLoaded: ReadonlySet<string>;
  readonly maxBoundTools: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  /** Loaded tools in least-recently-used-first order (Map keeps insertion order). */
  private readonly lru = new Map<string, true>();
  private pendingSince: number | undefined;
  private support: ListChangedSupport = 'unknown';
  /** The session's latest search, until its offered tools are followed (learning from use). */
  lastSearch: FollowedSearch | undefined;

  constructor(options: SessionOptions = {}) {
    this.alwaysLoaded = new Set(options.alwaysLoaded ?? []);
    this.maxBoundTools = options.maxBoundTools ?? DEFAULT_MAX_BOUND_TOOLS;
    this.windowMs = options.listChangedWindowMs ?? DEFAULT_LIST_CHANGED_WINDOW_MS;
    this.now = options.now ?? Date.now;
  }

  /** Bound tool names: always-loaded first (config order), then loaded ones, oldest use first. */
  bound(): string[] {
    return [...this.alwaysLoaded, ...[...this.lru.keys()].filter((n) => !this.alwaysLoaded.has(n))];
  }

  isBound(name: string): boolean {
    return this.alwaysLoaded.has(name) || this.lru.has(name);
  }

  /** Loaded (not always-loaded) tool names, oldest use first. */
  loaded(): string[] {
    return [...this.lru.keys()];
  }

  load(names: readonly string[]): LoadOutcome {
    const out: LoadOutcome = { loaded: [], already: [], evicted: [], overCap: [] };
    const fresh: string[] = [];
    for (const name of new Set(names)) {
      if (this.alwaysLoaded.has(name)) out.already.push(name);
      else if (this.lru.has(name)) {
        out.already.push(name);
        this.touch(name);
      } else if (fresh.length < this.maxBoundTools) fresh.push(name);
      else out.overCap.push(name);
    }
    // Evict before inserting so the tools of this request never evict each other.
    const excess = this.lru.size + fresh.length - this.maxBoundTools;
    if (excess > 0) {
      const alreadyNamed = new Set(out.already);
      const victims = [...this.lru.keys()].filter((n) => !alreadyNamed.has(n));
      // Tools named again in this request were just refreshed; evict them only as a last resort.
      victims.push(...[...this.lru.keys()].filter((n) => alreadyNamed.has(n)));
      for (const victim of victims.slice(0, excess)) {
        this.lru.delete(victim);
        out.evicted.push(victim);
      }
    }
    for (const name of fresh) {
      this.lru.set(name, true);
      out.loaded.push(name);
    }
    return out;
  }

  unload(names: readonly string[]): UnloadOutcome {
    const out: UnloadOutcome = { unloaded: [], kept: [], notLoaded: [] };
    for (const name of new Set(names)) {
      if (this.alwaysLoaded.has(name)) out.kept.push(name);
      else if (this.lru.delete(name)) out.unloaded.push(name);
      else out.notLoaded.push(name);
    }
    return out;
  }

  /** Drops every loaded tool the predicate rejects (e.g. gone after an upstream re-list). */
  retain(keep: (name: string) => boolean): string[] {
    const dropped = [...this.lru.keys()].filter((n) => !keep(n));
    for (const name of dropped) this.lru.delete(name);
    return dropped;
  }

  /** Marks a tool as just used, so LRU eviction spares it. */
  touch(name: string): void {
    if (this.lru.delete(name)) this.lru.set(name, true);
  }

  /** Call right after sending notifications/tools/list_changed. */
  listChangedSent(): void {
    this.settle();
    if (this.pendingSince === undefined) this.pendingSince = this.now();
  }

  /** Call on every tools/list request. */
  toolsListed(): void {
    if (this.pendingSince !== undefined) this.support = 'yes';
    this.pendingSince = undefined;
  }

  /**
   * Whether the client re-fetches tools/list after list_changed: 'no' once a
   * notification went unanswered for longer than the window.
   */
  listChangedSupport(): ListChangedSupport {
    this.settle();
    return this.support;
  }

  private settle(): void {
    if (this.pendingSince !== undefined && this.now() - this.pendingSince > this.windowMs) {
      this.support = 'no';
      this.pendingSince = undefined;
    }
  }
}
