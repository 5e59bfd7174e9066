// The public API of @toolsearch/mcp-adapter. Everything a user may import is
// exported here by name; anything not exported here is internal.
export { AdapterError } from './errors.js';
export type { AdapterErrorCode } from './errors.js';
