import type { ServerResponse } from 'node:http';
import Koa, { type Context, type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { AuthService } from '../../sdk/core.ts';
import { errors, HttpError } from '../../sdk/errors.ts';
import type { AuditInput, Logger, PluginState, RouteRequest } from '../../sdk/types.ts';
import { authorize, CORS_ALLOWED_HEADERS, hostAllowed, originAllowed, presentedToken, type AuthSettings } from './auth.ts';
import { respond } from './respond.ts';
import { RouteTable, type RouteEntry } from './route-table.ts';
import { findBlockedKey } from './validate.ts';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface HttpDeps {
  auth: AuthService;
  settings: AuthSettings & { trustProxy?: boolean };
  log: Logger;
  audit(entry: AuditInput): void;
  /** The kernel accepts requests only while running. */
  phase(): 'starting' | 'running' | 'stopping';
  pluginState(id: string): PluginState | undefined;
  production: boolean;
}

/** The Koa application: one error boundary, host/CORS guards, and one stable dispatcher over the route table. */
export function createHttpApp(deps: HttpDeps) {
  const app = new Koa();
  app.proxy = Boolean(deps.settings.trustProxy);
  app.silent = true;
  const parsers = new Map<string, Middleware>();
  const routes = new RouteTable((entry) => (ctx) => handleRoute(ctx, entry));

  async function handleRoute(ctx: Context, entry: RouteEntry): Promise<void> {
    if (entry.held || deps.pluginState(entry.pluginId) !== 'active') {
      throw errors.unavailable(`Plugin "${entry.pluginId}" is reloading`, 1);
    }
    const ip = (app.proxy ? ctx.ip : ctx.req.socket.remoteAddress) ?? '';
    const token = presentedToken(ctx.headers);
    const tokenValid = deps.auth.tokenConfigured && deps.auth.verify(token);
    const denied = authorize(entry.access, deps.auth, deps.settings, { tokenValid, ip });
    if (denied) {
      deps.audit({
        type: 'policy_decision', severity: 'warn', summary: `Denied ${ctx.method} ${ctx.path}: ${denied.message}`,
        metadata: { method: ctx.method, path: ctx.path, ip, status: denied.status, tokenPresented: token !== undefined },
      });
      throw denied;
    }
    const { validators, def } = entry;
    let body: unknown;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && (validators.body || def.multipart)) {
      await parserFor(def.bodyLimit ?? DEFAULT_BODY_LIMIT, Boolean(def.multipart))(ctx, async () => {});
      body = ctx.request.body;
      const blocked = findBlockedKey(body);
      if (blocked) throw errors.badRequest(`Body contains a blocked key: ${blocked}`);
    }
    const request = new HandlerRequest(ctx.res, {
      params: validators.params ? validators.params(ctx.params) as Record<string, string> : ctx.params,
      query: validators.query ? validators.query(ctx.query) as RouteRequest['query'] : ctx.query,
      headers: validators.headers ? validators.headers(ctx.headers) as RouteRequest['headers'] : ctx.headers,
      body: validators.body ? validators.body(body) : body,
      files: (ctx.request as { files?: RouteRequest['files'] }).files ?? {},
      method: ctx.method, path: ctx.path, url: ctx.url, ip, authenticated: tokenValid, presentedToken: token,
    });
    respond(ctx, await def.handler(request), entry, () => request.signal);
  }

  /** koa-body validates its options on creation, so one parser is built per distinct limit. */
  function parserFor(limit: number, multipart: boolean): Middleware {
    const key = `${limit}:${multipart}`;
    let parser = parsers.get(key);
    if (!parser) {
      parser = koaBody({
        jsonLimit: limit, formLimit: limit, textLimit: limit, multipart, jsonStrict: true,
        formidable: { maxFileSize: limit, maxTotalFileSize: limit, keepExtensions: false },
      }) as unknown as Middleware;
      parsers.set(key, parser);
    }
    return parser;
  }

  app.use(async (ctx, next) => {
    try {
      if (!hostAllowed(ctx.headers.host, deps.settings)) throw errors.forbidden('Host not allowed');
      const origin = ctx.headers.origin;
      if (origin && originAllowed(origin, deps.settings)) {
        ctx.set({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin' });
        if (ctx.method === 'OPTIONS') {
          ctx.set({
            'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
            'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
            'Access-Control-Max-Age': '600',
          });
          ctx.status = 204;
          return;
        }
      }
      if (deps.phase() !== 'running') throw errors.unavailable(`Server is ${deps.phase()}`, deps.phase() === 'starting' ? 1 : undefined);
      await routes.current()(ctx, next);
      if (ctx._matchedRoute !== undefined) return;
      const allowed = routes.allowedMethods(ctx.path);
      if (ctx.method === 'OPTIONS' && allowed.length) {
        ctx.status = 204;
        ctx.set('Allow', [...allowed, 'OPTIONS'].join(', '));
        return;
      }
      if (allowed.length) {
        throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Method ${ctx.method} not allowed for ${ctx.path}`, undefined, { Allow: allowed.join(', ') });
      }
      throw errors.notFound(`No route for ${ctx.method} ${ctx.path}`);
    } catch (error) {
      writeError(ctx, error, deps);
    }
  });

  return { app, routes };
}

type RequestFields = Omit<RouteRequest, 'signal'>;
interface HandlerRequest extends RequestFields {}
/**
 * What a handler receives. `signal` is created on first read, since an AbortController costs
 * microseconds and few handlers need one. It is a prototype getter: a getter in a per-request object
 * literal takes a V8 slow path that cost more CPU per request (bench/http.ts) than auth, validation and
 * dispatch together.
 */
class HandlerRequest {
  readonly #res: ServerResponse;
  #controller: AbortController | undefined;

  constructor(res: ServerResponse, fields: RequestFields) {
    Object.assign(this, fields);
    this.#res = res;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = (this.#controller = new AbortController());
      this.#res.once('close', () => { if (!this.#res.writableFinished) controller.abort(); });
    }
    return this.#controller.signal;
  }
}

/** Uniform error body `{error, code, details?}`; client mistakes never become a 500. */
function writeError(ctx: Context, error: unknown, deps: HttpDeps): void {
  let failure: HttpError;
  if (HttpError.is(error)) failure = error;
  else if (isClientError(error)) failure = fromParserError(error);
  else {
    deps.log.error(`Unhandled error in ${ctx.method} ${ctx.path}`, { error, route: ctx._matchedRoute, tags: ['http'] });
    failure = errors.internal(deps.production ? 'Internal error' : `Internal error: ${(error as Error)?.message ?? String(error)}`);
  }
  if (ctx.headerSent) return;
  ctx.status = failure.status;
  ctx.set(failure.headers);
  ctx.body = { ...failure.extra, error: failure.message, code: failure.code, ...(failure.details && { details: failure.details }) };
}

function isClientError(error: unknown): error is Error & { status: number; type?: string } {
  const status = (error as { status?: unknown })?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

function fromParserError(error: Error & { status: number; type?: string; httpCode?: number }): HttpError {
  if (error.status === 413 || error.type === 'entity.too.large') return errors.tooLarge('Request body exceeds the size limit');
  if (error.status === 415) return new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', error.message);
  if (error.type === 'entity.parse.failed') return errors.badRequest('Malformed JSON body');
  return errors.badRequest(error.message || 'Invalid request');
}
