import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { TSchema } from 'typebox';
import type { RouteInfo } from '../../sdk/core.ts';
import type { Access, RouteDef } from '../../sdk/types.ts';
import { compileValidators, type Validators } from './validate.ts';
import { hasSecrets } from '../redact.ts';

export interface RouteEntry {
  pluginId: string;
  method: string;
  path: string;
  access: Access;
  def: RouteDef<any>;
  validators: Validators;
  /** Response schemas that mark secret fields, by status. */
  redact: Record<number, TSchema>;
  /** A placeholder kept while its plugin reloads: answers 503. */
  held: boolean;
}

export type EntryHandler = (entry: RouteEntry) => Middleware;

/**
 * The route table. @koa/router cannot remove routes (F7), so every change marks the table dirty and
 * the next request rebuilds a fresh router; the stable dispatcher always reads the current one.
 */
export class RouteTable {
  private entries: RouteEntry[] = [];
  private router: Router | undefined;
  private dispatch: Middleware | undefined;

  constructor(private readonly handlerFor: EntryHandler) {}

  add(pluginId: string, def: RouteDef<any>): () => void {
    const added: RouteEntry[] = [];
    const redact: Record<number, TSchema> = {};
    for (const [status, schema] of Object.entries(def.schema?.response ?? {}) as [string, TSchema][]) if (hasSecrets(schema)) redact[Number(status)] = schema;
    const validators = compileValidators(def.schema);
    for (const path of Array.isArray(def.path) ? def.path : [def.path]) {
      if (!path.startsWith('/')) throw new Error(`Route path must start with "/": ${path}`);
      const key = routeKey(def.method, path);
      const clash = this.entries.find((e) => !e.held && routeKey(e.method, e.path) === key) ?? added.find((e) => routeKey(e.method, e.path) === key);
      if (clash) throw new Error(`Duplicate route ${def.method} ${path}: already registered by "${clash.pluginId}"`);
      added.push({ pluginId, method: def.method, path, access: def.access ?? 'token', def, validators, redact, held: false });
    }
    const keys = new Set(added.map((e) => routeKey(e.method, e.path)));
    this.entries = [...this.entries.filter((e) => !(e.held && keys.has(routeKey(e.method, e.path)))), ...added];
    this.invalidate();
    return () => {
      this.entries = this.entries.filter((e) => !added.includes(e));
      this.invalidate();
    };
  }

  /** Keeps a reloading plugin's paths answering 503 until `release`. */
  hold(pluginId: string): void {
    const held = this.entries.filter((e) => e.pluginId === pluginId && !e.held).map((e) => ({ ...e, held: true }));
    this.entries.push(...held);
    this.invalidate();
  }

  release(pluginId: string): void {
    this.entries = this.entries.filter((e) => !(e.held && e.pluginId === pluginId));
    this.invalidate();
  }

  /** The dispatch middleware of the current router (rebuilt after a change). */
  current(): Middleware {
    if (!this.dispatch) {
      const router = new Router({ exclusive: 'specificity' });
      for (const entry of this.entries) router.register(entry.path, [entry.method], this.handlerFor(entry));
      this.router = router;
      this.dispatch = router.routes() as Middleware;
    }
    return this.dispatch;
  }

  /** Methods registered for a path (for 405 + Allow). */
  allowedMethods(path: string): string[] {
    this.current();
    const layers = this.router!.match(path, 'GET').path;
    return [...new Set(layers.flatMap((l) => l.methods.filter((m) => m !== 'HEAD')))];
  }

  list(): RouteInfo[] {
    return this.entries.filter((e) => !e.held).map((e) => ({
      pluginId: e.pluginId, method: e.method, path: e.path, access: e.access, summary: e.def.summary,
      description: e.def.description, tags: e.def.tags, multipart: Boolean(e.def.multipart), schema: e.def.schema ?? {},
    }));
  }

  ownedBy(pluginId: string): number {
    return this.entries.filter((e) => e.pluginId === pluginId).length;
  }

  private invalidate(): void {
    this.router = undefined;
    this.dispatch = undefined;
  }
}

/** Paths that differ only in parameter names are the same route. */
function routeKey(method: string, path: string): string {
  return `${method} ${path.replace(/:[A-Za-z0-9_]+/g, ':').replace(/\*[A-Za-z0-9_]*/g, '*')}`;
}
