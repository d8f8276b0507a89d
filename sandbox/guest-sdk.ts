/**
 * The SDK a guest plugin imports as `@svc/sdk`, and the dispatcher the host calls into. Bundled with
 * TypeBox by guest-sdk-script.ts and evaluated in each module isolate before the guest's code; host code
 * never imports it.
 *
 * Why it is shaped like this (guest-bootstrap.ts explains the same rules for single runs):
 * - The host's one capability Reference stays in this module's strict-mode scope. Guest code only gets
 *   plain functions that send a JSON string out and get a JSON string back, so no argument can fail to
 *   copy inside isolated-vm and no host object can come back. `boot` runs once and returns `control`,
 *   whose Reference only the host holds.
 * - Option objects handed to isolated-vm have no prototype and are frozen: it reads options through the
 *   prototype chain, so a guest that patches Object.prototype could otherwise change how results cross.
 * - Builtins used after guest code has run are captured first. A guest that patches the rest changes
 *   only its own results, and the host checks every one of those.
 */
import './guest-text-encoder.ts';
import { Type } from 'typebox';
import Value from 'typebox/value';

interface HostReference {
  apply(receiver: undefined, args: string[], options: object): Promise<unknown>;
  applyIgnored(receiver: undefined, args: string[], options: object): void;
}
type Schema = Parameters<typeof Value.Check>[0];
type RoutePart = 'params' | 'query' | 'body';

interface GuestRouteDef {
  method: string;
  path: string;
  summary?: string;
  description?: string;
  schema?: Partial<Record<RoutePart, Schema>> & { response?: Record<number, Schema> };
  handler(request: { method: string; path: string; params: any; query: any; body: any }): unknown;
}
interface GuestActionDef {
  name: string;
  description: string;
  similes?: string[];
  parameters?: { name: string; description?: string; required?: boolean }[];
  handler(params: Record<string, string>, context: { text?: string; roomId?: string }): unknown;
}
interface GuestLogger { debug(message: unknown, fields?: unknown): void; info(message: unknown, fields?: unknown): void; warn(message: unknown, fields?: unknown): void; error(message: unknown, fields?: unknown): void }
interface GuestContext {
  readonly id: string;
  readonly log: GuestLogger;
  /** SSRF-guarded fetch; needs `capabilities: ['fetch']`. Resolves with `{status, headers, text}`. */
  fetch(url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: Record<string, string>; text: string }>;
  route(def: GuestRouteDef): void;
  action(def: GuestActionDef): void;
}
interface GuestPluginDef {
  id: string;
  version: string;
  description?: string;
  capabilities?: string[];
  setup(ctx: GuestContext): unknown;
}

const stringify = JSON.stringify;
const parse = JSON.parse;
const freeze = Object.freeze;
const defineProperty = Object.defineProperty;
const createObject = Object.create;
const keys = Object.keys;
const then = Function.prototype.call.bind(Promise.prototype.then) as <T>(promise: Promise<T>, onFulfilled: (value: T) => void) => Promise<void>;
const now = Date.now;
const floor = Math.floor;
const GuestError = Error;
const GuestTypeError = TypeError;
const toText = String;
const REPLY = Symbol('svc.reply');

/**
 * Limits enforced here, before anything crosses: every crossing is a task on the host's event loop,
 * so a guest must not be able to queue them without bound. The host checks sizes again.
 */
const MAX_RESULT_CHARS = 4 * 1024 * 1024;
const MAX_ARGS_CHARS = 1024 * 1024;
const MAX_LOG_CHARS = 2000;
const MAX_LOG_LINES_PER_SECOND = 100;
const MAX_PENDING_REQUESTS = 16;

const COPY = freeze({ __proto__: null, copy: true });
const CALL_OPTIONS = freeze({ __proto__: null, arguments: COPY, result: freeze({ __proto__: null, promise: true, copy: true }) });
const SEND_OPTIONS = freeze({ __proto__: null, arguments: COPY });

let host: HostReference | undefined;
/** Capabilities the plugin declared, as read once by `info`. */
const allowed: Record<string, true> = createObject(null);
let pending = 0;
let logSecond = 0;
let logLines = 0;
let plugin: GuestPluginDef | undefined;
let defined = 0;
let sealed = false;
const routes: GuestRouteDef[] = [];
const actions: GuestActionDef[] = [];

/** An error with an HTTP status and code; thrown from a route handler it becomes the response. */
export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: unknown[]) {
    super(message);
  }
}

/** The host SDK's error constructors, for guest handlers. */
export const errors = freeze({
  badRequest: (message = 'Invalid request', details?: unknown[], code = 'INVALID_REQUEST') => new HttpError(400, code, message, details),
  unauthorized: (message = 'Unauthorized', code = 'UNAUTHORIZED') => new HttpError(401, code, message),
  forbidden: (message = 'Forbidden', code = 'FORBIDDEN') => new HttpError(403, code, message),
  notFound: (message = 'Not found', code = 'NOT_FOUND') => new HttpError(404, code, message),
  conflict: (message = 'Conflict', code = 'CONFLICT') => new HttpError(409, code, message),
  unavailable: (message = 'Service unavailable') => new HttpError(503, 'SERVICE_UNAVAILABLE', message),
  internal: (message = 'Internal error', code = 'INTERNAL_ERROR') => new HttpError(500, code, message),
  http: (status: number, code: string, message: string) => new HttpError(status, code, message),
});

/** A response with an explicit status (a plain return value is 200, `undefined` is 204). */
export function reply(status: number, body?: unknown) {
  return freeze({ [REPLY]: true, status, body });
}

/** Declares the module's plugin; call it once, e.g. `export default definePlugin({ id, version, setup(ctx) {…} })`. */
export function definePlugin<T extends GuestPluginDef>(def: T): T {
  if (++defined > 1) throw new GuestError('definePlugin may be called only once per plugin module');
  plugin = def;
  return def;
}

/** Arguments as JSON text of bounded size. */
function encode(name: string, args: unknown[]): string {
  const text = stringify(args);
  if (typeof text !== 'string' || text.length > MAX_ARGS_CHARS) throw new GuestTypeError(`${name}: the arguments must be JSON of at most ${MAX_ARGS_CHARS} characters`);
  return text;
}

/** Calls a capability; the host answers `{ok, value}` or `{ok: false, error}`, raised here as a guest Error. */
async function request(name: string, args: unknown[]): Promise<any> {
  // Refused here, without a host round trip: a module without result-bearing capabilities never has host
  // answers arriving later, which is what lets the host run its calls synchronously (module-host.ts).
  if (allowed[name] !== true) throw new GuestError(`The plugin did not declare the ${name} capability: add capabilities: ['${name}'] to definePlugin`);
  if (pending >= MAX_PENDING_REQUESTS) throw new GuestError(`${name}: at most ${MAX_PENDING_REQUESTS} calls can be in flight at once`);
  pending++;
  try {
    const answer = parse(await host!.apply(undefined, [name, encode(name, args)], CALL_OPTIONS) as string);
    if (!answer.ok) throw new GuestError(answer.error);
    return answer.value;
  } finally {
    pending--;
  }
}

/** A log line the guest does not wait for; beyond the per-second budget lines are dropped. */
const logAt = (level: string) => (message: unknown, fields?: unknown) => {
  const second = floor(now() / 1000);
  if (second !== logSecond) { logSecond = second; logLines = 0; }
  if (++logLines > MAX_LOG_LINES_PER_SECOND) return;
  const text = typeof message === 'string' ? message : toText(message);
  const line = (fields === undefined ? text : `${text} ${stringify(fields)}`).slice(0, MAX_LOG_CHARS);
  host!.applyIgnored(undefined, ['log', encode('log', [level, line])], SEND_OPTIONS);
};

const context: GuestContext = freeze({
  get id() { return plugin!.id; },
  log: freeze({ debug: logAt('debug'), info: logAt('info'), warn: logAt('warn'), error: logAt('error') }),
  fetch: (url: string, init?: object) => request('fetch', [url, init ?? {}]),
  route(def: GuestRouteDef) {
    if (sealed) throw new GuestError('ctx.route can only be called during setup');
    if (typeof def?.handler !== 'function') throw new GuestTypeError('ctx.route: handler must be a function');
    routes.push({ ...def });
  },
  action(def: GuestActionDef) {
    if (sealed) throw new GuestError('ctx.action can only be called during setup');
    if (typeof def?.handler !== 'function') throw new GuestTypeError('ctx.action: handler must be a function');
    actions.push({ ...def });
  },
});

function info() {
  if (!plugin) throw new GuestError('The module did not call definePlugin: export default definePlugin({ id, version, setup(ctx) { … } })');
  // A private snapshot: the guest's own array may change later, this may not.
  const declared = plugin.capabilities ?? [];
  for (let i = 0; i < declared.length; i++) allowed[toText(declared[i])] = true;
  return { id: plugin.id, version: plugin.version, description: plugin.description, capabilities: keys(allowed) };
}

async function setup() {
  if (sealed || !plugin) throw new GuestError('setup already ran');
  if (typeof plugin.setup !== 'function') throw new GuestTypeError('definePlugin: setup must be a function');
  try {
    await plugin.setup(context);
  } finally {
    sealed = true;
  }
  return {
    routes: routes.map((r, i) => ({ handler: `route:${i}`, method: r.method, path: r.path, summary: r.summary, description: r.description, schema: r.schema ?? {} })),
    actions: actions.map((a, i) => ({ handler: `action:${i}`, name: a.name, description: a.description, similes: a.similes, parameters: a.parameters })),
  };
}

/** Re-checks the parts of a request the host could not check completely (patterns, formats, …) with TypeBox. */
function verify(route: GuestRouteDef, request: Record<RoutePart, unknown>, parts: RoutePart[]): void {
  for (const part of parts) {
    const schema = route.schema?.[part];
    if (!schema || Value.Check(schema, request[part])) continue;
    const details = Value.Errors(schema, request[part]).slice(0, 20).map((e) => ({ path: `${part}${e.instancePath}`, message: e.message }));
    const first = details[0];
    throw errors.badRequest(first ? `Invalid ${part}: ${first.path.slice(part.length + 1) || part} ${first.message}` : `Invalid ${part}`, details);
  }
}

async function call(handler: string, input: { request?: any; verify?: RoutePart[]; params?: Record<string, string>; text?: string; roomId?: string }) {
  const [kind, index] = handler.split(':');
  if (kind === 'route' && routes[Number(index)]) {
    const route = routes[Number(index)]!;
    verify(route, input.request, input.verify ?? []);
    const result: any = await route.handler(input.request);
    if (result?.[REPLY] === true) return { status: result.status, body: result.body };
    return result === undefined ? { status: 204 } : { status: 200, body: result };
  }
  if (kind === 'action' && actions[Number(index)]) {
    const result: any = await actions[Number(index)]!.handler(input.params ?? {}, freeze({ text: input.text, roomId: input.roomId }));
    if (typeof result === 'string') return { text: result };
    if (typeof result?.text === 'string') return { text: result.text, data: result.data };
    return { text: result === undefined ? '' : stringify(result) ?? toText(result) };
  }
  throw new GuestError(`Unknown handler ${handler}`);
}

/** Guest failures as data: HttpErrors keep their status and code; anything else is `Name: message`. */
function describe(error: unknown) {
  if (error instanceof HttpError) return { status: error.status, code: error.code, message: toText(error.message), details: error.details };
  if (error instanceof Error) return { message: `${error.name}: ${error.message}` };
  return { message: `Uncaught ${typeof error === 'string' ? error : 'non-Error value'}` };
}

/** What the host calls: `info`, `setup` or `call`; always resolves with a JSON string `{ok, value}` or `{ok: false, error}`. */
async function dispatch(op: string, handler: string, payload: string): Promise<string> {
  try {
    if (op === 'info') return stringify({ ok: true, value: info() });
    if (op === 'setup') return stringify({ ok: true, value: await setup() });
    if (op === 'call') {
      const text = stringify({ ok: true, value: await call(handler, parse(payload)) });
      if (text.length > MAX_RESULT_CHARS) throw new GuestError(`The result is larger than ${MAX_RESULT_CHARS} characters`);
      return text;
    }
    throw new GuestError(`Unknown operation ${op}`);
  } catch (error) {
    return stringify({ ok: false, error: describe(error) });
  }
}

/** Calls the host started, by id: the result text once settled, else the promise of it. No prototype to patch. */
const calls: Record<string, string | Promise<string>> = createObject(null);
let callCount = 0;

/**
 * The host's entry point. A call is driven in up to three steps so that a handler that needs no host
 * capability never leaves the host's thread: `start` (run synchronously by the host) runs the handler up
 * to its first real wait and returns the call's id; `take` (synchronous too, after the microtasks) hands
 * over the result text once settled, else null; only then `wait` (asynchronous) resolves with it.
 * `info` and `setup` go straight to `dispatch`.
 */
function control(op: string, arg: string, payload: string): string | null | Promise<string> {
  if (op === 'start') {
    const id = toText(++callCount);
    const running = dispatch('call', arg, payload);
    calls[id] = running;
    then(running, (text: string) => { if (calls[id] === running) calls[id] = text; });
    return id;
  }
  if (op === 'take' || op === 'wait') {
    const entry = calls[arg];
    if (op === 'take' && typeof entry !== 'string') return null;
    delete calls[arg];
    return entry ?? stringify({ ok: false, error: { message: `Unknown call ${arg}` } });
  }
  return dispatch(op, arg, payload);
}

/** Called once by the host with its capability Reference: installs the SDK for the guest's code and returns `control`. */
export function boot(capabilities: HostReference): typeof control {
  if (host) throw new GuestError('The guest SDK is already booted');
  host = capabilities;
  // Sources of work that would run later without a call from the host (see `request`).
  for (const name of ['WebAssembly', 'FinalizationRegistry']) delete (globalThis as Record<string, unknown>)[name];
  delete (Atomics as { waitAsync?: unknown }).waitAsync;
  defineProperty(globalThis, '__svcSdk', { value: freeze({ definePlugin, Type, reply, errors, HttpError }) });
  // Output of format cjs assigns module.exports; the plugin is found through definePlugin in every format.
  defineProperty(globalThis, 'module', { value: { exports: {} }, writable: true, configurable: true });
  return control;
}
