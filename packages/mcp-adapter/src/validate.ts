/**
 * JSON-schema validation of tool arguments (ajv). Errors name the failing
 * path ("arguments.path: must be string") so an agent can fix its call.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/**
 * `pattern` and `patternProperties` run on RE2JS, a linear-time engine, not on the
 * built-in backtracking one: the schemas come from upstream servers, and one pattern
 * like `^(a+)+$` took 490 ms at 28 characters, doubling with each more, while the whole
 * gateway waited. A pattern RE2 cannot express (back-references, look-arounds) is not
 * enforced here; the upstream still validates its own arguments.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    try {
      return RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch {
      return { test: () => true };
    }
  },
  { code: 'require("re2js").RE2JS.compile' },
);

const options = {
  allErrors: true,
  strict: false,
  validateFormats: false,
  logger: false,
  code: { regExp: linearRegExp },
} as const;
const draft7 = new Ajv(options);
const draft2020 = new Ajv2020(options);
/**
 * For the meta-tools' own schemas (ours, plain draft-07, covered by tests): compiled without
 * checking them against the JSON Schema meta-schema, whose compilation was the largest part of
 * a fresh gateway's first search_tools answer (~0.3 s CPU of it, `--cpu-prof`, load ~10).
 */
const trusted = new Ajv({ ...options, validateSchema: false });

/** Compiled validators, per schema object (tool definitions are kept, not copied). */
const cache = new WeakMap<object, ValidateFunction | null>();

/**
 * Problems of `value` against `schema`, one line each, or [] when valid. A
 * schema ajv cannot compile is not our business to enforce: the tool itself
 * still validates, so we let the call through. `own`: a meta-tool's schema (see `trusted`).
 */
export function schemaProblems(schema: unknown, value: unknown, root = 'arguments', own = false): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  let validate = cache.get(schema);
  if (validate === undefined) {
    validate = compile(schema as Record<string, unknown>, own);
    cache.set(schema, validate);
  }
  if (validate === null || validate(value)) return [];
  return (validate.errors ?? []).map((e) => describe(e, root));
}

function compile(schema: Record<string, unknown>, own: boolean): ValidateFunction | null {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const ajv = own ? trusted : dialect.includes('2020-12') || dialect.includes('2019-09') ? draft2020 : draft7;
  try {
    // $id would register the schema globally in ajv and clash on the next tool with the same id.
    const { $id: _id, ...rest } = schema;
    return ajv.compile(rest);
  } catch {
    return null;
  }
}

function describe(error: ErrorObject, root: string): string {
  const path = root + error.instancePath.split('/').slice(1).map(segment).join('');
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `${path}.${String(params.missingProperty)}: is required`;
  if (error.keyword === 'additionalProperties')
    return `${path}.${String(params.additionalProperty)}: is not allowed here`;
  if (error.keyword === 'enum') return `${path}: must be one of ${JSON.stringify(params.allowedValues)}`;
  return `${path}: ${error.message ?? 'is invalid'}`;
}

function segment(part: string): string {
  const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
  if (/^\d+$/.test(key)) return `[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
