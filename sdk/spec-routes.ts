import { Type } from 'typebox';
import { reply } from './results.ts';
import type { PluginContext, RouteRequest, UploadedFile } from './types.ts';

/** The request a spec-style route handler sees. */
export interface SpecRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, unknown>;
  files: Record<string, UploadedFile[]>;
  method: string;
  path: string;
  /** The agent selected by `?agentId=`, when given. */
  agentId: string | undefined;
}

/** The Express-like response object of spec-style routes. */
export interface SpecResponse {
  status(code: number): SpecResponse;
  setHeader(name: string, value: string): SpecResponse;
  json(body: unknown): void;
  send(body?: unknown): void;
  end(): void;
}

/** A route as the spec's plugins declare it (type GET…DELETE or STATIC). */
export interface SpecRoute<R = unknown> {
  type: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'STATIC';
  path: string;
  public?: boolean;
  name?: string;
  isMultipart?: boolean;
  /** Directory served by a STATIC route. */
  filePath?: string;
  handler?: (req: SpecRequest, res: SpecResponse, runtime: R) => unknown | Promise<unknown>;
}

/**
 * Registers spec-style routes on `ctx.route`/`ctx.static`. `runtimeFor(agentId)` supplies the third
 * handler argument; an unknown agent id should throw `errors.notFound`.
 */
export function specRoutes<R>(ctx: PluginContext<any>, routes: SpecRoute<R>[], runtimeFor: (agentId: string | undefined) => R): void {
  for (const route of routes) {
    const access = route.public ? 'public' : 'token';
    if (route.type === 'STATIC') {
      if (!route.filePath) throw new Error(`STATIC route ${route.path} needs filePath`);
      ctx.static(route.path, route.filePath, access);
      continue;
    }
    const handler = route.handler;
    if (!handler) throw new Error(`Route ${route.type} ${route.path} needs a handler`);
    ctx.route({
      method: route.type, path: route.path, access, summary: route.name, multipart: route.isMultipart,
      // Spec handlers read `req.body` without declaring a schema; an open body schema makes the kernel parse it.
      schema: route.type === 'GET' ? undefined : { body: Type.Unknown() },
      async handler(req: RouteRequest) {
        const agentId = typeof req.query.agentId === 'string' ? req.query.agentId : undefined;
        const state = { status: 200, body: undefined as unknown, headers: {} as Record<string, string> };
        const res: SpecResponse = {
          status(code) { state.status = code; return res; },
          setHeader(name, value) { state.headers[name] = value; return res; },
          json(body) { state.body = body; },
          send(body) { state.body = body; },
          end() {},
        };
        const request: SpecRequest = { ...req, query: req.query, headers: req.headers, params: req.params, agentId };
        await handler(request, res, runtimeFor(agentId));
        return reply(state.body === undefined && state.status === 200 ? 204 : state.status, state.body, state.headers);
      },
    });
  }
}
