/**
 * The one place where learned events are validated, merged and bounded, so the
 * file store, the Redis store and the engine feed agree on what is kept.
 */

import { LEARN_LIMITS } from '../defaults.js';
import { AdapterError } from '../errors.js';
import type { CoUse, LearnEvents, LearnedState, LearnedUse } from './types.js';

/** Whitespace collapsed, trimmed, lower-cased, cut to the limit: one phrasing, however it was typed. */
export function normalizeQuery(query: string): string {
  return query.replace(/\s+/g, ' ').trim().toLowerCase().slice(0, LEARN_LIMITS.maxQueryChars).trim();
}

export function useKey(query: string, tool: string): string {
  return JSON.stringify([query, tool]);
}

export function pairKey(a: string, b: string): string {
  return JSON.stringify(a < b ? [a, b] : [b, a]);
}

/**
 * Checks and normalises events before they are recorded. Throws INVALID_ARGUMENTS
 * naming the bad entry; an empty query or a pair of one tool is dropped silently
 * (it carries nothing to learn, and is no caller's mistake).
 */
export function normalizeEvents(events: LearnEvents, now: number): LearnedState {
  if (events === null || typeof events !== 'object')
    throw new AdapterError('INVALID_ARGUMENTS', 'learn: events must be an object { uses?, together? }');
  const uses = events.uses ?? [];
  const together = events.together ?? [];
  if (!Array.isArray(uses) || !Array.isArray(together))
    throw new AdapterError('INVALID_ARGUMENTS', 'learn: "uses" and "together" must be arrays');
  if (uses.length + together.length > LEARN_LIMITS.maxEventsPerRecord)
    throw new AdapterError(
      'INVALID_ARGUMENTS',
      `learn: at most ${LEARN_LIMITS.maxEventsPerRecord} events per record, got ${uses.length + together.length}`,
    );
  const out: LearnedState = { uses: [], together: [] };
  uses.forEach((use: LearnedUse, i) => {
    const where = `learn: uses[${i}]`;
    if (use === null || typeof use !== 'object')
      throw new AdapterError('INVALID_ARGUMENTS', `${where} must be an object`);
    if (typeof use.query !== 'string')
      throw new AdapterError('INVALID_ARGUMENTS', `${where}.query must be a string`);
    checkTool(use.tool, `${where}.tool`);
    const query = normalizeQuery(use.query);
    if (query === '') return;
    out.uses.push({
      query,
      tool: use.tool,
      count: checkCount(use.count, `${where}.count`),
      lastSeen: checkTime(use.lastSeen, `${where}.lastSeen`, now),
    });
  });
  together.forEach((pair: CoUse, i) => {
    const where = `learn: together[${i}]`;
    if (pair === null || typeof pair !== 'object' || !Array.isArray(pair.tools) || pair.tools.length !== 2)
      throw new AdapterError('INVALID_ARGUMENTS', `${where}.tools must be two tool names`);
    checkTool(pair.tools[0], `${where}.tools[0]`);
    checkTool(pair.tools[1], `${where}.tools[1]`);
    const [a, b] = pair.tools;
    if (a === b) return;
    out.together.push({
      tools: a < b ? [a, b] : [b, a],
      count: checkCount(pair.count, `${where}.count`),
      lastSeen: checkTime(pair.lastSeen, `${where}.lastSeen`, now),
    });
  });
  return out;
}

/** Adds `events` into `state` (counts add, lastSeen keeps the latest), then bounds it. */
export function mergeState(state: LearnedState, events: LearnedState, now: number): LearnedState {
  const uses = new Map(state.uses.map((u) => [useKey(u.query, u.tool), { ...u }]));
  for (const u of events.uses) {
    const key = useKey(u.query, u.tool);
    const old = uses.get(key);
    if (old) {
      old.count += u.count;
      old.lastSeen = Math.max(old.lastSeen, u.lastSeen);
    } else uses.set(key, { ...u });
  }
  const pairs = new Map(state.together.map((p) => [pairKey(...p.tools), { ...p }]));
  for (const p of events.together) {
    const key = pairKey(...p.tools);
    const old = pairs.get(key);
    if (old) {
      old.count += p.count;
      old.lastSeen = Math.max(old.lastSeen, p.lastSeen);
    } else pairs.set(key, { ...p, tools: [...p.tools] });
  }
  return boundState({ uses: [...uses.values()], together: [...pairs.values()] }, now);
}

/**
 * Drops aged entries, keeps the most frequent (then most recent) queries per
 * tool and overall, and sorts the result so the same state always serialises
 * the same way.
 */
export function boundState(state: LearnedState, now: number): LearnedState {
  const fresh = (lastSeen: number) => now - lastSeen <= LEARN_LIMITS.maxAgeMs;
  const order = <T extends { count: number; lastSeen: number }>(a: T, b: T, ka: string, kb: string) =>
    b.count - a.count || b.lastSeen - a.lastSeen || (ka < kb ? -1 : ka > kb ? 1 : 0);
  const ranked = state.uses
    .filter((u) => fresh(u.lastSeen))
    .sort((a, b) => order(a, b, useKey(a.query, a.tool), useKey(b.query, b.tool)));
  const perTool = new Map<string, number>();
  const uses: Required<LearnedUse>[] = [];
  for (const u of ranked) {
    const n = perTool.get(u.tool) ?? 0;
    if (n >= LEARN_LIMITS.maxUsesPerTool) continue;
    perTool.set(u.tool, n + 1);
    uses.push(u);
    if (uses.length >= LEARN_LIMITS.maxUses) break;
  }
  const together = state.together
    .filter((p) => fresh(p.lastSeen))
    .sort((a, b) => order(a, b, pairKey(...a.tools), pairKey(...b.tools)))
    .slice(0, LEARN_LIMITS.maxTogether);
  return { uses, together };
}

/**
 * Reads a state from untrusted JSON (a file someone may have edited, a Redis
 * hash): entries that do not fit are skipped, never thrown on. Returns
 * undefined when the shape itself is wrong (then the caller sets the data aside).
 */
export function parseState(json: unknown, now: number): LearnedState | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const { uses, together } = json as Record<string, unknown>;
  if (!Array.isArray(uses) || !Array.isArray(together)) return undefined;
  const state: LearnedState = { uses: [], together: [] };
  for (const u of uses) {
    if (!isRecord(u) || typeof u.query !== 'string' || !validTool(u.tool)) continue;
    const query = normalizeQuery(u.query);
    if (query === '' || !validCount(u.count) || !validTime(u.lastSeen)) continue;
    state.uses.push({
      query,
      tool: u.tool as string,
      count: u.count as number,
      lastSeen: u.lastSeen as number,
    });
  }
  for (const p of together) {
    if (!isRecord(p) || !Array.isArray(p.tools) || p.tools.length !== 2) continue;
    const [a, b] = p.tools as unknown[];
    if (!validTool(a) || !validTool(b) || a === b || !validCount(p.count) || !validTime(p.lastSeen)) continue;
    const x = a as string;
    const y = b as string;
    state.together.push({
      tools: x < y ? [x, y] : [y, x],
      count: p.count as number,
      lastSeen: p.lastSeen as number,
    });
  }
  return mergeState({ uses: [], together: [] }, state, now);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

function validTool(tool: unknown): boolean {
  return typeof tool === 'string' && tool !== '' && tool.length <= LEARN_LIMITS.maxToolChars;
}

function validCount(count: unknown): boolean {
  return typeof count === 'number' && Number.isSafeInteger(count) && count >= 1;
}

function validTime(time: unknown): boolean {
  return typeof time === 'number' && Number.isFinite(time) && time >= 0;
}

function checkTool(tool: unknown, where: string): void {
  if (!validTool(tool))
    throw new AdapterError(
      'INVALID_ARGUMENTS',
      `${where} must be a tool name of 1 to ${LEARN_LIMITS.maxToolChars} characters`,
    );
}

function checkCount(count: unknown, where: string): number {
  if (count === undefined) return 1;
  if (!validCount(count)) throw new AdapterError('INVALID_ARGUMENTS', `${where} must be an integer >= 1`);
  return count as number;
}

function checkTime(time: unknown, where: string, now: number): number {
  if (time === undefined) return now;
  if (!validTime(time)) throw new AdapterError('INVALID_ARGUMENTS', `${where} must be epoch milliseconds`);
  return Math.min(time as number, now); // a clock ahead of ours must not pin an entry forever
}
