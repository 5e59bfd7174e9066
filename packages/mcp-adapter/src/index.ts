// The public API of @toolsearch/mcp-adapter. Everything a user may import is
// exported here by name; anything not exported here is internal.

export { toolsetOf } from '@toolsearch/core-search';
export type { CatalogTool, EngineOptions } from './catalog.js';
export { Catalog } from './catalog.js';
export {
  ADAPTER_DEFAULTS,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_LIST_CHANGED_WINDOW_MS,
  DEFAULT_MAX_BOUND_TOOLS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  VERSION,
} from './defaults.js';
export type { AdapterErrorCode } from './errors.js';
export { AdapterError } from './errors.js';
export type { GatewayOptions } from './gateway/gateway.js';
export { Gateway, TOOL_LIST_CACHE_HINT } from './gateway/gateway.js';
export type { FollowedSearch, HandleCodecOptions, HandleState } from './handles.js';
export { DEFAULT_HANDLE_TTL_SECONDS, HANDLE_KEY_ENV, HandleCodec, MIN_HANDLE_KEY_BYTES } from './handles.js';
export type { ConnectableServer, HttpHandle, HttpOptions, ServeContext } from './http.js';
export { isLoopback, serveHttp } from './http.js';
export type { ToolSearchHandle, WithToolSearchOptions } from './library/with-tool-search.js';
export { alwaysLoadedFromEnv, withToolSearch } from './library/with-tool-search.js';
export type {
  MetaBackend,
  MetaContext,
  MetaMode,
  RequestExtra,
  ToolsetStatus,
  UseEvent,
} from './meta-tools.js';
export {
  CALL_TOOL,
  HANDLE_META_KEY,
  INSTRUCTIONS,
  isMetaTool,
  LOAD_TOOLSET,
  META_TOOLS,
  metaToolsFor,
  runMetaTool,
  SEARCH_TOOLS,
  STATELESS_META_TOOLS,
  UNLOAD_TOOLSET,
} from './meta-tools.js';
export { ERROR_META_KEY } from './render.js';
export type { TokenReport } from './report.js';
export { formatTokenReport, tokenReport } from './report.js';
export type { ListChangedSupport, LoadOutcome, SessionOptions, UnloadOutcome } from './session.js';
export { SessionState } from './session.js';
