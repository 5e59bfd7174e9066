// The public API of @toolsearch/mcp-adapter, in two tiers (like @toolsearch/core-search):
// - this root: withToolSearch, the gateway (Gateway, serveHttp), the building blocks the
//   README documents, their options and config types, the keys clients read in `_meta`, and
//   errors;
// - '@toolsearch/mcp-adapter/internals' (src/internals.ts): helpers and constants (tool names,
//   default values, the version), with no compatibility promise.
// test/exports.test.ts lists every value each tier exports, so a change here is deliberate.
// A tool's toolset is core-search's rule: import toolsetOf from '@toolsearch/core-search'.

export type { CatalogTool, EngineOptions } from './catalog.js';
export { Catalog } from './catalog.js';
export { ADAPTER_DEFAULTS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './defaults.js';
export type { AdapterErrorCode } from './errors.js';
export { AdapterError } from './errors.js';
export type { GatewayOptions } from './gateway/gateway.js';
export { Gateway } from './gateway/gateway.js';
export type { FollowedSearch, HandleCodecOptions, HandleState } from './handles.js';
export { HandleCodec } from './handles.js';
export type { ConnectableServer, HttpHandle, HttpOptions, ServeContext } from './http.js';
export { serveHttp } from './http.js';
export type { ToolSearchHandle, WithToolSearchOptions } from './library/with-tool-search.js';
export { withToolSearch } from './library/with-tool-search.js';
export type {
  MetaBackend,
  MetaContext,
  MetaMode,
  RequestExtra,
  ToolsetStatus,
  UseEvent,
} from './meta-tools.js';
export {
  HANDLE_META_KEY,
  INSTRUCTIONS,
  META_TOOLS,
  runMetaTool,
  STATELESS_META_TOOLS,
} from './meta-tools.js';
export { ERROR_META_KEY } from './render.js';
export type { TokenReport } from './report.js';
export { tokenReport } from './report.js';
export type { ListChangedSupport, LoadOutcome, SessionOptions, UnloadOutcome } from './session.js';
export { SessionState } from './session.js';
