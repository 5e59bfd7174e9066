// '@toolsearch/mcp-adapter/internals': helpers and constants behind the public API (see
// index.ts): the meta-tools' names, default values, the version. For tests, tools and
// advanced use; no compatibility promise.

export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_LIST_CHANGED_WINDOW_MS,
  DEFAULT_MAX_BOUND_TOOLS,
  VERSION,
} from './defaults.js';
export { TOOL_LIST_CACHE_HINT } from './gateway/gateway.js';
export { DEFAULT_HANDLE_TTL_SECONDS, HANDLE_KEY_ENV, MIN_HANDLE_KEY_BYTES } from './handles.js';
export { isLoopback } from './http.js';
export { alwaysLoadedFromEnv } from './library/with-tool-search.js';
export {
  CALL_TOOL,
  isMetaTool,
  LOAD_TOOLSET,
  metaToolsFor,
  SEARCH_TOOLS,
  UNLOAD_TOOLSET,
} from './meta-tools.js';
export { catalogTokenReport, formatTokenReport } from './report.js';
export { countTokens, countToolListTokens } from './tokens.js';
