import type { TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import Value from 'typebox/value';
import { errors } from '../../sdk/errors.ts';
import type { RouteSchema } from '../../sdk/types.ts';

type Part = 'params' | 'query' | 'headers' | 'body';
export type Validators = Partial<Record<Part, (value: unknown) => unknown>>;

/**
 * Compiles a route's schemas once, at registration (F8). Params, query and headers are coerced from
 * strings: shallow copy → Default → Convert → Check (they are flat, and Convert assigns rather than
 * mutates, so a shallow copy keeps the framework's objects intact). Bodies are JSON already: Default → Check.
 */
export function compileValidators(schema: RouteSchema | undefined): Validators {
  const out: Validators = {};
  for (const part of ['params', 'query', 'headers', 'body'] as const) {
    const partSchema = schema?.[part];
    if (partSchema) out[part] = compilePart(part, partSchema);
  }
  return out;
}

function compilePart(part: Part, schema: TSchema): (value: unknown) => unknown {
  const validator = Compile(schema);
  const coerce = part !== 'body';
  const convert = compileConvert(validator, schema);
  const withDefaults = coerce ? compileDefaults(validator, schema) : (value: unknown) => validator.Default(value);
  return (input) => {
    let value = coerce ? convert(withDefaults({ ...(input as object) })) : withDefaults(input);
    if (!coerce && value === undefined) value = input;
    if (validator.Check(value)) return value;
    const details = [...validator.Errors(value)].slice(0, 20).map((e) => ({ path: `${part}${e.instancePath}`, message: e.message }));
    const first = details[0];
    throw errors.badRequest(first ? `Invalid ${part}: ${first.path.slice(part.length + 1) || part} ${first.message}` : `Invalid ${part}`, details);
  };
}

/**
 * Convert for the flat objects params, query and headers are. TypeBox's object Convert builds a RegExp
 * per property on every call; converting each known property with its own schema does the same work
 * without that per-request cost. Objects with an additionalProperties schema keep the full Convert.
 */
function compileConvert(validator: Validator, schema: TSchema): (value: unknown) => unknown {
  const object = schema as { properties?: Record<string, TSchema>; additionalProperties?: unknown };
  if (!object.properties || typeof object.additionalProperties === 'object') return (value) => validator.Convert(value);
  const properties = Object.entries(object.properties);
  const context = validator.Context();
  return (value) => {
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    for (const [key, property] of properties) if (record[key] !== undefined) record[key] = Value.Convert(context, property, record[key]);
    return record;
  };
}

/** Keywords under which a property schema could hold defaults of its own, deeper than its top level. */
const NESTING = ['properties', 'additionalProperties', 'patternProperties', 'items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', '$ref', '$defs'];

/**
 * Default for the flat objects params, query and headers are: when every property's schema is a leaf
 * (no nested schemas), applying defaults is assigning each missing property its schema's `default`,
 * which skips TypeBox's generic walk per request. Anything else keeps TypeBox's Default.
 */
function compileDefaults(validator: Validator, schema: TSchema): (value: unknown) => unknown {
  const object = schema as { properties?: Record<string, TSchema>; default?: unknown } & Record<string, unknown>;
  const leaves = object.properties && Object.values(object.properties).every((p) => NESTING.every((k) => !(k in p)));
  if (!leaves || 'default' in object || NESTING.some((k) => k !== 'properties' && k in object)) return (value) => validator.Default(value);
  const defaults = Object.entries(object.properties!).filter(([, p]) => 'default' in p).map(([key, p]) => [key, (p as { default: unknown }).default] as const);
  return (value) => {
    const record = value as Record<string, unknown>;
    for (const [key, fallback] of defaults) if (record[key] === undefined) record[key] = typeof fallback === 'object' && fallback !== null ? structuredClone(fallback) : fallback;
    return record;
  };
}

const BLOCKED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Finds `__proto__`/`constructor`/`prototype` keys anywhere in a parsed JSON value. Iterative, so any
 * nesting depth JSON.parse accepts is searched completely without overflowing the call stack.
 */
export function findBlockedKey(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const item of current) pending.push(item);
      continue;
    }
    for (const key of Object.keys(current)) {
      if (BLOCKED_KEYS.has(key)) return key;
      pending.push((current as Record<string, unknown>)[key]);
    }
  }
  return undefined;
}
