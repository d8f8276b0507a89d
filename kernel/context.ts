import { mkdirSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Type } from 'typebox';
import { errors } from '../sdk/errors.ts';
import { file } from '../sdk/results.ts';
import type { Token } from '../sdk/tokens.ts';
import type { Access, AuditInput, Disposable, PluginContext, RouteDef } from '../sdk/types.ts';
import type { ConfigStore } from './config.ts';
import type { ServiceRegistry } from './container.ts';
import type { EventBus } from './events.ts';
import type { RouteTable } from './http/route-table.ts';
import type { WsHub } from './http/ws.ts';
import type { LogSink } from './log.ts';
import type { PluginRecord } from './registry.ts';
import type { StorageManager } from './storage/storage.ts';

export interface KernelParts {
  services: ServiceRegistry;
  events: EventBus;
  routes: RouteTable;
  ws: WsHub;
  logs: LogSink;
  config: ConfigStore;
  storage: StorageManager;
  audit(owner: string, entry: AuditInput): void;
  timers: Map<string, number>;
}

/** Builds a plugin's context: everything it registers lands on its own stack, released LIFO at unload. */
export function createContext(record: PluginRecord, parts: KernelParts): PluginContext<any> {
  const { id } = record.def;
  const signal = record.controller.signal;
  const assertLive = () => {
    if (signal.aborted) throw new Error(`Plugin "${id}" is unloading; it cannot register more resources`);
  };
  const track = (disposable: Disposable) => {
    assertLive();
    record.stack.push(disposable);
  };
  /** Checks liveness before registering, so a late call (after a setup timeout or unload) leaks nothing. */
  const own = (register: () => Disposable) => {
    assertLive();
    track(register());
  };
  /** A fired one-shot or cancelled timer leaves the stack at once, so rescheduling plugins do not grow it. */
  const timer = (start: (fired: () => void) => NodeJS.Timeout, clear: (h: NodeJS.Timeout) => void): (() => void) => {
    assertLive();
    let live = true;
    const leave = () => {
      if (!live) return;
      live = false;
      parts.timers.set(id, (parts.timers.get(id) ?? 1) - 1);
      const at = record.stack.indexOf(dispose);
      if (at !== -1) record.stack.splice(at, 1);
    };
    const handle = start(leave);
    const dispose = () => { clear(handle); leave(); };
    parts.timers.set(id, (parts.timers.get(id) ?? 0) + 1);
    track(dispose);
    return dispose;
  };
  const storageDir = parts.storage.dir(id);
  return {
    id,
    config: parts.config.forPlugin(id, record.def.config),
    log: parts.logs.logger(id),
    signal,
    storage: {
      sql: async (options) => {
        assertLive();
        const db = await parts.storage.sql(id, options);
        try {
          track(() => parts.storage.close(id));
        } catch (error) {
          await parts.storage.close(id);
          throw error;
        }
        return db;
      },
      get dir() { mkdirSync(storageDir, { recursive: true }); return storageDir; },
    },
    provide: <T>(token: Token<T>, value: T) => {
      if (!(record.def.provides ?? []).some((t) => t.id === token.id)) {
        throw new Error(`Plugin "${id}" provides "${token.id}" without declaring it in provides`);
      }
      own(() => parts.services.provide(id, token, value));
    },
    use: <T>(token: Token<T>) => {
      const value = parts.services.resolve(token);
      if (value === undefined) throw new Error(`Service "${token.id}" is not available to plugin "${id}"`);
      return value;
    },
    tryUse: (token) => parts.services.resolve(token),
    route: (def) => own(() => parts.routes.add(id, def as RouteDef<any>)),
    static: (prefix, dir, access: Access = 'token') => own(() => parts.routes.add(id, staticRoute(prefix, dir, access))),
    on: (event, listener) => own(() => parts.events.on(id, event, listener)),
    emit: (event, payload) => parts.events.emit(event, payload),
    ws: {
      on: (type, handler) => own(() => parts.ws.on(id, type, handler)),
      onConnect: (handler) => own(() => parts.ws.onConnect(id, handler)),
      broadcast: (message) => parts.ws.broadcast(message),
    },
    setInterval: (fn, ms) => timer(() => setInterval(fn, ms), clearInterval),
    setTimeout: (fn, ms) => timer((fired) => setTimeout(() => { fired(); fn(); }, ms), clearTimeout),
    track,
    audit: (entry) => parts.audit(id, entry),
  };
}

/** A GET route serving files below `dir`; resolved paths must stay inside it. */
function staticRoute(prefix: string, dir: string, access: Access): RouteDef<any> {
  const root = resolve(dir);
  const base = prefix.replace(/\/+$/, '');
  return {
    method: 'GET', path: `${base}/*file`, access, summary: `Static files from ${base}`,
    schema: { params: Type.Object({ file: Type.Array(Type.String()) }) },
    async handler(req) {
      const segments = (req.params as { file: string[] }).file;
      if (segments.some((s) => s === '..' || s.includes('\0') || s.includes('\\'))) throw errors.badRequest('Invalid path');
      const target = resolve(root, ...segments);
      if (!target.startsWith(root + sep)) throw errors.badRequest('Invalid path');
      const info = await stat(target).catch(() => undefined);
      if (!info?.isFile()) throw errors.notFound('File not found');
      return file(createReadStream(target), { type: contentType(target) });
    },
  };
}

const TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript', css: 'text/css', json: 'application/json', png: 'image/png', svg: 'image/svg+xml', txt: 'text/plain; charset=utf-8' };
function contentType(path: string): string {
  return TYPES[path.slice(path.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
}
