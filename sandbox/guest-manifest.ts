import { Compile } from 'typebox/compile';
import { Type, type GuestAction, type GuestManifest, type GuestRoute, type HttpMethod } from '../sdk/index.ts';
import { hostSchema, SchemaProblem } from './guest-schema.ts';

/** Capabilities a guest may declare beyond `log`, which it always has. */
export const GUEST_CAPABILITIES = ['fetch'] as const;
export const MAX_ROUTES = 50;
export const MAX_ACTIONS = 50;
/** Schema nodes per plugin (all routes and parts): bounds the host's work compiling them (~25 ms at most). */
const MAX_SCHEMA_NODES = 5000;

const ID = /^[a-z][a-z0-9-]{0,47}$/;
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;
/** `/`, or `/`-separated segments of unreserved URL characters (not `.` or `..`) and `:params`. */
const ROUTE_PATH = /^\/$|^(\/(:[A-Za-z_][A-Za-z0-9_]{0,63}|(?!\.{1,2}(\/|$))[A-Za-z0-9._~-]{1,64})){1,16}$/;
const ACTION_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const Text = (max: number) => Type.String({ maxLength: max });

const Info = Compile(Type.Object({
  id: Type.String(),
  version: Type.String(),
  description: Type.Optional(Text(2000)),
  capabilities: Type.Array(Type.String(), { maxItems: 8 }),
}));

const Shape = Compile(Type.Object({
  routes: Type.Array(Type.Object({
    handler: Type.String(), method: Type.String(), path: Type.String({ maxLength: 1024 }),
    summary: Type.Optional(Text(200)), description: Type.Optional(Text(2000)),
    schema: Type.Record(Type.String(), Type.Unknown()),
  }), { maxItems: MAX_ROUTES }),
  actions: Type.Array(Type.Object({
    handler: Type.String(), name: Type.String(), description: Type.String({ minLength: 1, maxLength: 2000 }),
    similes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20, default: [] }),
    parameters: Type.Array(Type.Object({
      name: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,63}$' }),
      description: Type.String({ maxLength: 1000, default: '' }),
      required: Type.Boolean({ default: false }),
    }), { maxItems: 50, default: [] }),
  }), { maxItems: MAX_ACTIONS }),
}));

/** A manifest problem; the loader reports it as 422 INVALID_PLUGIN. */
export class ManifestProblem extends Error {}

/** What `definePlugin` declared, checked. */
export interface GuestInfo { id: string; version: string; description?: string; capabilities: string[] }

/** Parses guest JSON, refusing `__proto__` keys anywhere (they would set prototypes when defaults are cloned). */
export function parseGuestJson(text: unknown): unknown {
  if (typeof text !== 'string') throw new ManifestProblem('The plugin returned no JSON text');
  return JSON.parse(text, (key, value) => {
    if (key === '__proto__') throw new ManifestProblem('The plugin manifest has a "__proto__" key');
    return value;
  });
}

/** Checks what `definePlugin` declared: a kebab-case id, a version, known capabilities. */
export function checkInfo(value: unknown): GuestInfo {
  const info = Info.Default(value);
  if (!Info.Check(info)) throw new ManifestProblem(`definePlugin: ${describe(Info.Errors(info))}`);
  if (!ID.test(info.id)) throw new ManifestProblem(`definePlugin: id "${info.id.slice(0, 60)}" must be kebab-case (a-z, 0-9, -), start with a letter and have at most 48 characters`);
  if (!VERSION.test(info.version)) throw new ManifestProblem(`definePlugin: version "${info.version.slice(0, 60)}" must be 1-64 of A-Z a-z 0-9 . + -`);
  const unknown = info.capabilities.filter((c) => !(GUEST_CAPABILITIES as readonly string[]).includes(c));
  if (unknown.length) throw new ManifestProblem(`definePlugin: unknown capabilities ${unknown.join(', ')} (available: ${GUEST_CAPABILITIES.join(', ')}; log is always there)`);
  return info as GuestInfo;
}

/** A checked manifest, and for each route the request parts the isolate must re-check (see guest-schema.ts). */
export interface CheckedManifest { manifest: GuestManifest; verify: Map<string, ('params' | 'query' | 'body')[]> }

/** Checks the routes and actions a guest registered and reduces their schemas to what the host may run. */
export function checkManifest(info: GuestInfo, value: unknown): CheckedManifest {
  const shape = Shape.Default(value);
  if (!Shape.Check(shape)) throw new ManifestProblem(`setup: ${describe(Shape.Errors(shape))}`);
  const verify = new Map<string, ('params' | 'query' | 'body')[]>();
  const seen = new Set<string>();
  const budget = { nodes: MAX_SCHEMA_NODES };
  const routes = shape.routes.map((route, i): GuestRoute => {
    const method = route.method.toUpperCase() as HttpMethod;
    if (!METHODS.includes(method)) throw new ManifestProblem(`ctx.route: method "${route.method.slice(0, 20)}" must be one of ${METHODS.join(', ')}`);
    if (!ROUTE_PATH.test(route.path)) throw new ManifestProblem(`ctx.route: path "${route.path.slice(0, 100)}" must be "/" or /segments of A-Z a-z 0-9 . _ ~ - and :params`);
    const key = `${method} ${route.path.replace(/:[A-Za-z0-9_]+/g, ':')}`;
    if (seen.has(key)) throw new ManifestProblem(`ctx.route: ${method} ${route.path} is registered twice`);
    seen.add(key);
    const schema: GuestRoute['schema'] = {};
    const lossy: ('params' | 'query' | 'body')[] = [];
    for (const [part, raw] of Object.entries(route.schema)) {
      if (raw === undefined) continue;
      const where = `${method} ${route.path} schema.${part}`;
      if (part === 'response') {
        schema.response = Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([status, body]) => {
          if (!/^[1-5][0-9][0-9]$/.test(status)) throw new ManifestProblem(`${where}: "${status.slice(0, 10)}" is not a status code`);
          return [status, safely(body, `${where}.${status}`, budget).schema];
        }));
        continue;
      }
      if (part !== 'params' && part !== 'query' && part !== 'body') throw new ManifestProblem(`${where}: only params, query, body and response are supported`);
      const object = typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'object';
      if (!object && part !== 'body') throw new ManifestProblem(`${where} must be an object schema (Type.Object)`);
      if (typeof raw !== 'object' || raw === null) throw new ManifestProblem(`${where} must be a schema object`);
      const reduced = safely(raw, where, budget);
      schema[part] = reduced.schema as never;
      if (reduced.lossy) lossy.push(part);
    }
    if (lossy.length) verify.set(`route:${i}`, lossy);
    return {
      handler: `route:${i}`, method, path: route.path, schema,
      ...(route.summary && { summary: route.summary }), ...(route.description && { description: route.description }),
    };
  });
  const names = new Set<string>();
  const actions = shape.actions.map((action, i): GuestAction => {
    if (!ACTION_NAME.test(action.name)) throw new ManifestProblem(`ctx.action: name "${action.name.slice(0, 70)}" must be UPPER_SNAKE_CASE (A-Z, 0-9, _), at most 64 characters`);
    if (names.has(action.name)) throw new ManifestProblem(`ctx.action: ${action.name} is registered twice`);
    names.add(action.name);
    return { handler: `action:${i}`, name: action.name, description: action.description, similes: action.similes, parameters: action.parameters };
  });
  const manifest: GuestManifest = {
    id: info.id, version: info.version, capabilities: info.capabilities, routes, actions,
    ...(info.description && { description: info.description }),
  };
  return { manifest, verify };
}

function safely(schema: unknown, where: string, budget: { nodes: number }) {
  try {
    return hostSchema(schema, where, budget);
  } catch (error) {
    if (error instanceof SchemaProblem) throw new ManifestProblem(error.message);
    throw error;
  }
}

function describe(errors: Iterable<{ instancePath: string; message: string }>): string {
  const [first] = [...errors];
  return first ? `${first.instancePath.slice(1) || 'value'} ${first.message}` : 'invalid';
}
