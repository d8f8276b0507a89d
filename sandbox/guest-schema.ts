import type { TSchema } from '../sdk/index.ts';

/** A guest schema reduced to what the host may compile and run, and whether anything was left out. */
export interface HostSchema { schema: TSchema; lossy: boolean }

/** A schema the host refuses outright (too deep, too big, not a schema). */
export class SchemaProblem extends Error {}

const MAX_DEPTH = 32;
const MAX_ENUM = 1000;
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const NUMBERS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'examples', 'deprecated', 'readOnly', 'writeOnly', 'default']);
/** Formats whose checks run in linear time (the rest are checked in the isolate). */
const HOST_FORMATS = new Set(['uuid', 'date-time', 'date', 'time', 'ipv4', 'email']);
/** Key patterns TypeBox's Type.Record emits for string, number and integer keys. */
const RECORD_KEY_PATTERNS = new Set(['^.*$', '^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?$', '^-?(?:0|[1-9][0-9]*)$']);

/**
 * Rebuilds a guest's JSON schema from an allow-list of keywords whose checks run in linear time on
 * plain values: types, properties, lengths, ranges, enum/const, combinators, TypeBox records. Whatever
 * else it declares (patterns, most formats, $ref, uniqueItems, if/then/else, unknown keywords) is left
 * out and `lossy` is set, so the guest SDK checks the full schema inside the isolate, under the
 * isolate's limits: a catastrophic regular expression can then stall only the guest. Leaving a
 * keyword out must only ever accept more, so a lossy `not` is dropped whole and a lossy `oneOf`
 * becomes `anyOf`. `budget.nodes` bounds the work of compiling the result on the host.
 */
export function hostSchema(schema: unknown, where: string, budget: { nodes: number }): HostSchema {
  let lossy = false;
  const visit = (node: unknown, path: string, depth: number): unknown => {
    if (typeof node === 'boolean') return node;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) throw new SchemaProblem(`${path} is not a schema`);
    if (depth > MAX_DEPTH) throw new SchemaProblem(`${where} is nested deeper than ${MAX_DEPTH} levels`);
    if (--budget.nodes < 0) throw new SchemaProblem(`${where}: the plugin's schemas have too many nodes`);
    const out: [string, unknown][] = [];
    const drop = () => { lossy = true; };
    const sub = (value: unknown, key: string) => visit(value, `${path}/${key}`, depth + 1);
    const subs = (value: unknown, key: string) => {
      if (!Array.isArray(value)) throw new SchemaProblem(`${path}/${key} is not an array of schemas`);
      return value.map((item, i) => sub(item, `${key}/${i}`));
    };
    let dropAdditional = false;
    for (const [key, value] of Object.entries(node)) {
      if (key === '__proto__') throw new SchemaProblem(`${path} has a "__proto__" key`);
      if (ANNOTATIONS.has(key)) out.push([key, value]);
      else if (key === 'type') {
        const valid = typeof value === 'string' ? TYPES.has(value) : Array.isArray(value) && value.every((t) => TYPES.has(t));
        if (valid) out.push([key, value]); else drop();
      } else if (NUMBERS.has(key)) {
        if (typeof value === 'number' && Number.isFinite(value) && (key !== 'multipleOf' || value > 0)) out.push([key, value]); else drop();
      } else if (key === 'required') {
        if (Array.isArray(value) && value.every((name) => typeof name === 'string')) out.push([key, value]); else drop();
      } else if (key === 'enum') {
        if (!Array.isArray(value) || value.length > MAX_ENUM) throw new SchemaProblem(`${path}/enum must be an array of at most ${MAX_ENUM} values`);
        out.push([key, value]);
      } else if (key === 'const') out.push([key, value]);
      else if (key === 'properties') {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SchemaProblem(`${path}/properties is not an object`);
        out.push([key, Object.fromEntries(Object.entries(value).map(([name, property]) => [name, sub(property, `properties/${name}`)]))]);
      } else if (key === 'additionalProperties' || key === 'additionalItems' || key === 'not') {
        const before = lossy;
        lossy = false;
        const safe = sub(value, key);
        const inner = lossy;
        lossy = before || inner;
        if (!(key === 'not' && inner)) out.push([key, safe]);
      } else if (key === 'items') out.push([key, Array.isArray(value) ? subs(value, key) : sub(value, key)]);
      else if (key === 'prefixItems' || key === 'anyOf' || key === 'allOf') out.push([key, subs(value, key)]);
      else if (key === 'oneOf') {
        const before = lossy;
        lossy = false;
        const branches = subs(value, key);
        out.push([lossy ? 'anyOf' : 'oneOf', branches]);
        lossy ||= before;
      } else if (key === 'patternProperties' && typeof value === 'object' && value !== null && Object.keys(value).every((p) => RECORD_KEY_PATTERNS.has(p))) {
        out.push([key, Object.fromEntries(Object.entries(value).map(([pattern, property]) => [pattern, sub(property, `patternProperties/${pattern}`)]))]);
      } else if (key === 'patternProperties') {
        // Keys the dropped patterns admit must not be refused as additional properties on the host.
        dropAdditional = true;
        drop();
      } else if (key === 'format' && HOST_FORMATS.has(value as string)) out.push([key, value]);
      else if (key.startsWith('x-')) out.push([key, value]);
      else if (key !== '$schema') drop();
    }
    return Object.fromEntries(dropAdditional ? out.filter(([key]) => key !== 'additionalProperties') : out);
  };
  const safe = visit(schema, where, 0) as TSchema;
  return { schema: safe, lossy };
}
