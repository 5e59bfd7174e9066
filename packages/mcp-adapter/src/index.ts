// The public API of @toolsearch/mcp-adapter. Everything a user may import is
// exported here by name; anything not exported here is internal.

export type { CatalogTool, EngineOptions } from './catalog.js';
export { Catalog, toolsetOf } from './catalog.js';
export type { AdapterErrorCode } from './errors.js';
export { AdapterError } from './errors.js';
export type { GatewayOptions } from './gateway/gateway.js';
export { Gateway } from './gateway/gateway.js';
export type { ConnectableServer, HttpHandle, HttpOptions } from './http.js';
export { DEFAULT_SESSION_IDLE_TIMEOUT_MS, isLoopback, serveHttp } from './http.js';
export type { ToolSearchHandle, WithToolSearchOptions } from './library/with-tool-search.js';
export { alwaysLoadedFromEnv, withToolSearch } from './library/with-tool-search.js';
export type { MetaBackend, MetaContext, RequestExtra, ToolsetStatus } from './meta-tools.js';
export {
  CALL_TOOL,
  INSTRUCTIONS,
  isMetaTool,
  LOAD_TOOLSET,
  META_TOOLS,
  runMetaTool,
  SEARCH_TOOLS,
  UNLOAD_TOOLSET,
} from './meta-tools.js';
export { ERROR_META_KEY } from './render.js';
export type { TokenReport } from './report.js';
export { formatTokenReport, tokenReport } from './report.js';
export type { ListChangedSupport, LoadOutcome, SessionOptions, UnloadOutcome } from './session.js';
export { DEFAULT_LIST_CHANGED_WINDOW_MS, DEFAULT_MAX_BOUND_TOOLS, SessionState } from './session.js';
