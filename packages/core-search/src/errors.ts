/**
 * Every error core-search throws is a ToolSearchError with a string `code`, so
 * callers can branch on `err.code` instead of parsing messages. Messages start
 * with "toolsearch: " and name what is wrong and where (tool index, field).
 */
export type ToolSearchErrorCode =
  | 'INVALID_TOOL' // a tool definition is malformed (details.issues lists index + field)
  | 'DUPLICATE_TOOL' // two tools share a name (details.issues lists both indexes)
  | 'UNKNOWN_TOOL' // remove/get named a tool the index does not hold
  | 'EMPTY_QUERY' // the query is empty or whitespace only
  | 'INVALID_QUERY' // the query is not a string
  | 'UNKNOWN_STRATEGY' // an options list names a strategy that does not exist
  | 'UNKNOWN_TOOLSET' // a search's toolsets filter names a toolset the index does not hold (message lists the known ones)
  | 'NO_STRATEGIES' // the options switch off every strategy (message lists the ones there are)
  | 'EMPTY_INDEX' // search() on an engine that holds no tools
  | 'INVALID_OPTION' // an option has the wrong type or range
  | 'INVALID_INDEX' // load() was given something toJSON() did not produce
  | 'INVALID_DATASET' // a dataset / tools file cannot be read
  | 'MODEL_LOAD_FAILED' // an embedding model could not be loaded
  | 'INVALID_PHRASING' // addPhrasings/learn was given something that is not a list of requests
  | 'INVALID_PACK' // a phrasing pack file is malformed or names a tool its registry lacks
  | 'MISSING_DEPENDENCY' // an optional package a feature needs is not installed (the message names it)
  | 'ENRICH_FAILED' // the chat endpoint could not be reached, timed out or answered an HTTP error
  | 'ENRICH_BAD_ANSWER'; // the chat endpoint's answer held no usable phrasings

/** One problem found in the input, located precisely. */
export interface ToolSearchIssue {
  /** Index of the tool in the array passed to add()/the constructor, when known. */
  index?: number;
  /** Tool name, when known. */
  name?: string;
  /** Field path, e.g. "description" or "inputSchema.properties". */
  field?: string;
  message: string;
}

export class ToolSearchError extends Error {
  override readonly name = 'ToolSearchError';
  readonly code: ToolSearchErrorCode;
  readonly issues: readonly ToolSearchIssue[];

  constructor(code: ToolSearchErrorCode, message: string, issues: readonly ToolSearchIssue[] = []) {
    super(message.startsWith('toolsearch: ') ? message : `toolsearch: ${message}`);
    this.code = code;
    this.issues = issues;
  }
}

export function isToolSearchError(value: unknown): value is ToolSearchError {
  return value instanceof ToolSearchError;
}
