import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import { errors } from '../../sdk/errors.ts';
import type { RouteSchema } from '../../sdk/types.ts';

type Part = 'params' | 'query' | 'headers' | 'body';
export type Validators = Partial<Record<Part, (value: unknown) => unknown>>;

/**
 * Compiles a route's schemas once, at registration (F8). Params, query and headers are coerced from
 * strings: Clone → Default → Convert → Check. Bodies are JSON already: Default → Check.
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
  return (input) => {
    let value = coerce ? validator.Convert(validator.Default(Value.Clone(input ?? {}))) : validator.Default(input);
    if (!coerce && value === undefined) value = input;
    if (validator.Check(value)) return value;
    const details = [...validator.Errors(value)].slice(0, 20).map((e) => ({ path: `${part}${e.instancePath}`, message: e.message }));
    const first = details[0];
    throw errors.badRequest(first ? `Invalid ${part}: ${first.path.slice(part.length + 1) || part} ${first.message}` : `Invalid ${part}`, details);
  };
}

const BLOCKED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Finds `__proto__`/`constructor`/`prototype` keys anywhere in a parsed JSON value. */
export function findBlockedKey(value: unknown, depth = 0): string | undefined {
  if (typeof value !== 'object' || value === null || depth > 64) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findBlockedKey(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (BLOCKED_KEYS.has(key)) return key;
    const found = findBlockedKey((value as Record<string, unknown>)[key], depth + 1);
    if (found) return found;
  }
  return undefined;
}
