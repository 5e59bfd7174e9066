/**
 * Bounds of what learning from use keeps, shared by every store. Sized so the
 * whole store stays well under a megabyte and loads in milliseconds.
 */
export const LEARN_LIMITS = {
  /** Queries longer than this are cut (a pasted document is not a phrasing). */
  maxQueryChars: 200,
  /** Tool names longer than this are refused (MCP names are short). */
  maxToolChars: 200,
  /** Distinct queries kept per tool: the most frequent, then the most recent. */
  maxUsesPerTool: 50,
  /** Distinct (query, tool) pairs kept in all. */
  maxUses: 20_000,
  /** Tool pairs kept in all. */
  maxTogether: 5_000,
  /** Partners kept per tool when the pairs are used as related tools. */
  maxTogetherPerTool: 20,
  /** Entries not seen for this long are dropped. */
  maxAgeMs: 180 * 24 * 3600 * 1000,
  /** Events accepted in one record() call; more is a caller bug, refused. */
  maxEventsPerRecord: 1_000,
} as const satisfies Record<string, number>;
