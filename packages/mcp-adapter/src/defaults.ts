/**
 * The adapter's limits and safety defaults that are not search settings (those are in
 * core-search's defaults.ts). Each one is configurable where its comment says.
 */
export const ADAPTER_DEFAULTS = {
  /**
   * HTTP: open sessions at once; an `initialize` over it gets 503. A session holds about
   * 35 KB until it ends or idles out (30 min), so without a cap 3,000 sessions held 106 MB.
   * `toolsearch.maxSessions`, `--max-sessions`, serveHttp({ maxSessions }).
   */
  maxSessions: 256,
  /**
   * Gateway: the credentials of the upstream configs (see redact.ts credentialValues) are
   * replaced by `***` in the upstreams' tool definitions and call results, not only in
   * logs and errors: a server that echoes its API key must not hand it to the model.
   * `toolsearch.redactSecrets: false` passes definitions and results through untouched.
   */
  redactSecrets: true,
  /**
   * HTTP: a request body nested deeper than this ([ and {) is refused with 400 before it
   * is parsed further: the SDK's validation recurses. Real tool arguments nest a few levels.
   */
  maxJsonDepth: 256,
} as const satisfies { maxSessions: number; redactSecrets: boolean; maxJsonDepth: number };
