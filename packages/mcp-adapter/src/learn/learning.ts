/**
 * Learning from use, in the adapter: what a conversation searched for and then
 * loaded or called (the meta-tools' onUse hook, either protocol era) becomes a
 * (query -> tool) use, fed to the search engine at once and to the store for
 * the next start (and, with a shared store, for the other gateway processes,
 * picked up by `refresh`). Arguments, results and anything else about the
 * conversation never reach this module.
 */
import { LEARN_LIMITS, stderrLog } from '../defaults.js';
import { normalizeQuery, pairKey, useKey } from './aggregate.js';
import type { CoUse, LearnedState, LearnedUse, UsageStore } from './types.js';

/** What Learning needs from the catalog: which tools exist, and the engine's learn. */
export interface LearningTarget {
  has(name: string): boolean;
  learn(uses: readonly Required<LearnedUse>[]): void;
}

export interface LearningOptions {
  store: UsageStore;
  target: LearningTarget;
  /** Re-read the store this often for uses other processes recorded; 0 = never. */
  refreshMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

/** How many recently called tools of a conversation pair with the next call. */
export const CO_USE_WINDOW = 10;

export class Learning {
  readonly store: UsageStore;
  private readonly target: LearningTarget;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  /** Per use key, the count the engine has been given, so a refresh feeds only what is new. */
  private readonly fed = new Map<string, number>();
  /** Per use key, the latest state known (store and this process), for details and re-feeding. */
  private uses = new Map<string, Required<LearnedUse>>();
  private together = new Map<string, Required<CoUse>>();
  private timer: NodeJS.Timeout | undefined;
  private warned = new Set<string>();
  private pending = new Set<Promise<void>>();

  private constructor(options: LearningOptions) {
    this.store = options.store;
    this.target = options.target;
    this.log = options.log ?? stderrLog;
    this.now = options.now ?? Date.now;
  }

  /** Loads the store into the engine, then keeps refreshing it in the background. */
  static async start(options: LearningOptions): Promise<Learning> {
    const learning = new Learning(options);
    await learning.refresh();
    const every = options.refreshMs ?? 0;
    if (every > 0) {
      learning.timer = setInterval(() => void learning.refresh(), every);
      learning.timer.unref();
    }
    return learning;
  }

  /** Re-reads the store and feeds the engine what it has not seen yet. Never throws. */
  async refresh(): Promise<void> {
    let state: LearnedState;
    try {
      state = await this.store.load();
    } catch (err) {
      this.warn(
        'load',
        `toolsearch-mcp: cannot load learned uses (${this.store.description}): ${message(err)}`,
      );
      return;
    }
    for (const use of state.uses) {
      const key = useKey(use.query, use.tool);
      const known = this.uses.get(key);
      if (!known || known.count < use.count) this.uses.set(key, { ...use });
    }
    // Pairs are only read (related tools), so the store's view replaces ours, plus what is not written yet.
    const together = new Map(state.together.map((p) => [pairKey(...p.tools), p]));
    for (const [key, pair] of this.together) if (!together.has(key)) together.set(key, pair);
    this.together = together;
    this.feed();
  }

  /**
   * Tools the catalog (re-)indexed: their learned uses go to the engine again,
   * since a re-indexed tool starts from its definition.
   */
  reindexed(names: readonly string[]): void {
    const tools = new Set(names);
    for (const [key, use] of this.uses) if (tools.has(use.tool)) this.fed.delete(key);
    this.feed();
  }

  /** Feeds the engine the uses of tools it now has (e.g. after an upstream came up). */
  feed(): void {
    const batch: Required<LearnedUse>[] = [];
    for (const [key, use] of this.uses) {
      if (!this.target.has(use.tool)) continue;
      const given = this.fed.get(key) ?? 0;
      if (use.count <= given) continue;
      batch.push({ ...use, count: use.count - given });
      this.fed.set(key, use.count);
    }
    if (batch.length === 0) return;
    try {
      this.target.learn(batch);
    } catch (err) {
      this.warn('learn', `toolsearch-mcp: the engine refused learned uses: ${message(err)}`);
    }
  }

  /** Records one use: the engine learns it now, the store in the background. */
  use(query: string, tool: string): void {
    const text = normalizeQuery(query);
    if (text === '' || tool === '') return;
    const key = useKey(text, tool);
    const now = this.now();
    const old = this.uses.get(key);
    this.uses.set(key, { query: text, tool, count: (old?.count ?? 0) + 1, lastSeen: now });
    this.feed();
    this.write({ uses: [{ query: text, tool, lastSeen: now }] });
  }

  /** Records that two tools were called in one conversation. */
  usedTogether(a: string, b: string): void {
    if (a === b) return;
    const key = pairKey(a, b);
    const now = this.now();
    const tools: [string, string] = a < b ? [a, b] : [b, a];
    const old = this.together.get(key);
    this.together.set(key, { tools, count: (old?.count ?? 0) + 1, lastSeen: now });
    this.write({ together: [{ tools, lastSeen: now }] });
  }

  /** Tools most often called with `tool`, most frequent first (ties: by name). */
  related(tool: string, limit: number): string[] {
    const partners: { name: string; count: number }[] = [];
    for (const pair of this.together.values()) {
      const [a, b] = pair.tools;
      if (a === tool) partners.push({ name: b, count: pair.count });
      else if (b === tool) partners.push({ name: a, count: pair.count });
    }
    return partners
      .sort((x, y) => y.count - x.count || (x.name < y.name ? -1 : 1))
      .slice(0, Math.min(limit, LEARN_LIMITS.maxTogetherPerTool))
      .map((p) => p.name);
  }

  /** The queries that most often led to `tool`. */
  queriesFor(tool: string, limit: number): string[] {
    return [...this.uses.values()]
      .filter((u) => u.tool === tool)
      .sort((a, b) => b.count - a.count || b.lastSeen - a.lastSeen || (a.query < b.query ? -1 : 1))
      .slice(0, limit)
      .map((u) => u.query);
  }

  /** A tracker for one conversation (a session, or one linked by search handles). */
  conversation(): ConversationLearner {
    return new ConversationLearner(this);
  }

  /** Waits for the store writes started so far (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.settled();
    await this.store.close().catch(() => {});
  }

  private write(events: Parameters<UsageStore['record']>[0]): void {
    const done = this.store
      .record(events)
      .catch((err: unknown) =>
        this.warn(
          'record',
          `toolsearch-mcp: cannot record a learned use (${this.store.description}): ${message(err)}`,
        ),
      )
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** A store that is down is said once per kind of failure, not once per event. */
  private warn(kind: string, line: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.log(line);
  }
}

/**
 * One 2025-era session's calls, for co-use: each pair of distinct tools it
 * calls is recorded once. (Which searches a load or call follows is told by
 * the meta-tools' onUse hook, in both protocol eras; it feeds Learning.use.)
 */
export class ConversationLearner {
  private readonly called: string[] = [];

  constructor(private readonly learning: Learning) {}

  calledTool(tool: string): void {
    if (this.called.includes(tool)) return;
    for (const other of this.called) this.learning.usedTogether(tool, other);
    this.called.push(tool);
    if (this.called.length > CO_USE_WINDOW) this.called.shift();
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
