import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { auditRecorded, coreAuth, coreKernel, corePlugins, logWritten, type AuditEntry, type KernelInfo, type OwnedResources, type PluginHost, type PluginInfo } from '../sdk/core.ts';
import type { Token } from '../sdk/tokens.ts';
import type { AuditInput, PluginDef } from '../sdk/types.ts';
import { ConfigStore } from './config.ts';
import { ServiceRegistry } from './container.ts';
import { createContext, type KernelParts } from './context.ts';
import { EventBus } from './events.ts';
import { importPluginFile } from './hot-load.ts';
import { createHttpApp } from './http/app.ts';
import { createAuthService, isLoopbackIp, type AuthSettings } from './http/auth.ts';
import { WsHub } from './http/ws.ts';
import { LogSink, type LogSinkOptions } from './log.ts';
import { PluginRegistry } from './registry.ts';
import { SecretBox } from './secrets.ts';
import { StorageManager } from './storage/storage.ts';

export interface KernelOptions {
  plugins?: PluginDef<any>[];
  /** State directory (default `~/.svc`). */
  stateDir?: string;
  /** Per-plugin configuration from the embedder, by plugin id. */
  config?: Record<string, Record<string, unknown>>;
  /** Environment read by config schemas (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  auth?: AuthSettings & { trustProxy?: boolean };
  log?: LogSinkOptions;
  /** Throw from `start()` when any plugin fails (tests); otherwise failed plugins are reported. */
  strict?: boolean;
  setupTimeoutMs?: number;
  /** Secret-at-rest key passphrase (default: a key file in the state dir). */
  secretKey?: string;
  production?: boolean;
  version?: string;
}

export interface ListenOptions { port?: number; host?: string; handleSignals?: boolean }

export type Kernel = ReturnType<typeof createKernel>;

/** Creates a kernel: DI, plugin lifecycle, HTTP/WS routing, auth, events, config and storage. */
export function createKernel(options: KernelOptions = {}) {
  const stateDir = options.stateDir ?? join(homedir(), '.svc');
  const authSettings = { ...options.auth, checkHost: options.auth?.checkHost ?? true };
  const production = options.production ?? false;
  const logs = new LogSink(options.log);
  const log = logs.logger('kernel');
  const auth = createAuthService(authSettings);
  const services = new ServiceRegistry();
  const events = new EventBus((owner, event, error) => logs.logger(owner).error(`Listener for ${event} failed`, { error, tags: ['events'] }));
  logs.onEntry((entry) => events.emit(logWritten, entry));
  const storage = new StorageManager(stateDir);
  const secrets = new SecretBox(stateDir, options.secretKey);
  const config = new ConfigStore(stateDir, options.config ?? {}, options.env ?? process.env, secrets);
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  const startedAt = Date.now();
  const servers = new Set<Server>();

  const audit = (source: string, input: AuditInput) => {
    const entry: AuditEntry = {
      timestamp: new Date().toISOString(), type: input.type, summary: input.summary, metadata: { source, ...input.metadata },
      severity: input.severity ?? 'info', traceId: input.traceId ?? randomUUID(),
    };
    events.emit(auditRecorded, entry);
  };

  let registry!: PluginRegistry;
  const { app, routes } = createHttpApp({
    auth, settings: authSettings, log, production, audit: (entry) => audit('kernel', entry),
    phase: () => phase, pluginState: (id) => registry.state(id),
  });
  const ws = new WsHub({ auth, settings: authSettings, log: logs.logger('ws'), audit: (entry) => audit('kernel', entry) });
  const timers = new Map<string, number>();
  const parts: KernelParts = { services, events, routes, ws, logs, config, storage, timers, audit };

  registry = new PluginRegistry({
    coreTokens: new Set([coreAuth.id, coreKernel.id, corePlugins.id]),
    defaultSetupTimeoutMs: options.setupTimeoutMs ?? 10_000,
    serviceProvider: (id) => services.providerOf(id),
    holdRoutes: (id) => routes.hold(id),
    releaseRoutes: (id) => routes.release(id),
    onFailure: (id, error) => log.error(`Plugin "${id}" failed: ${error.message}`, { plugin: id, tags: ['lifecycle'] }),
    setup: async (record) => { await record.def.setup(createContext(record, parts)); },
  });

  const owned = (id: string): OwnedResources => ({
    routes: routes.ownedBy(id), listeners: events.ownedBy(id), timers: timers.get(id) ?? 0,
    wsHandlers: ws.ownedBy(id), services: services.ownedBy(id), disposables: registry.records.get(id)?.stack.length ?? 0,
  });

  const info: KernelInfo = {
    version: options.version ?? '0.0.0',
    startedAt,
    phase: () => phase,
    plugins: () => registry.info(),
    routes: () => routes.list(),
    services: () => services.ids(),
    logs: () => logs.entries(),
    owned,
    probeStorage: () => storage.probe(),
  };
  // Plugins that host others (VFS plugins) change the running set: each change is audited.
  const audited = <T>(action: string, id: string, change: Promise<T>): Promise<T> => change.then((result) => {
    audit('kernel', { type: 'privileged_capability_invocation', summary: `Plugin "${id}" ${action} at run time`, metadata: { plugin: id, action } });
    return result;
  });
  const host: PluginHost = {
    load: (def) => audited('loaded', def.id, registry.load(def)),
    reload: (id, def) => audited('reloaded', id, registry.reload(id, def)),
    unload: (id, opts) => audited('unloaded', id, registry.unload(id, opts)),
    state: (id) => registry.state(id),
  };
  services.provide('kernel', coreAuth, auth);
  services.provide('kernel', coreKernel, info);
  services.provide('kernel', corePlugins, host);
  for (const def of options.plugins ?? []) registry.register(def);

  const callback = app.callback();

  /** Unloads plugins (dependents first), flushes storage, closes sockets and servers. */
  async function stop(): Promise<void> {
    if (phase === 'stopping') return;
    phase = 'stopping';
    await registry.unloadAll();
    await storage.closeAll();
    ws.close();
    await Promise.all([...servers].map((server) => new Promise<void>((done) => {
      server.close(() => done());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2000).unref();
    })));
  }


  return {
    stateDir,
    auth,
    logs,
    /** Loads the configuration, then every plugin in dependency order. */
    async start(): Promise<{ failed: { id: string; error: string }[] }> {
      await config.load();
      const failed = await registry.loadAll();
      if (failed.length && options.strict) {
        throw new AggregateError(failed.map((f) => new Error(`${f.id}: ${f.error}`)), `Plugins failed to start: ${failed.map((f) => f.id).join(', ')}`);
      }
      phase = 'running';
      log.info(`Kernel running with ${registry.info().filter((p) => p.state === 'active').length} active plugins`, { tags: ['lifecycle'] });
      return { failed };
    },
    stop,
    /** Listens on loopback by default; a non-loopback address needs a configured token. */
    async listen(listen: ListenOptions = {}): Promise<{ server: Server; url: string }> {
      const host = listen.host ?? '127.0.0.1';
      if (!isLoopbackHost(host) && !auth.tokenConfigured) {
        throw new Error(`Refusing to listen on ${host} without an API token: set SVC_API_TOKEN, or bind 127.0.0.1`);
      }
      if (!isLoopbackHost(host)) authSettings.checkHost = false;
      const server = createServer(callback);
      server.on('upgrade', (req, socket, head) => { if (!ws.handleUpgrade(req, socket, head)) socket.destroy(); });
      await new Promise<void>((done, fail) => { server.once('error', fail); server.listen(listen.port ?? 0, host, () => done()); });
      servers.add(server);
      if (listen.handleSignals) {
        const shutdown = (signal: string) => {
          log.info(`Received ${signal}, shutting down`, { tags: ['lifecycle'] });
          stop().then(() => process.exit(0), (error) => { log.error('Shutdown failed', { error }); process.exit(1); });
        };
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);
      }
      const address = server.address() as { port: number };
      return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}` };
    },
    /** The request handler, for mounting in another program's `node:http` server. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void { return callback; },
    /** Handles `/ws` upgrades for an embedding server; false for other paths. */
    handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => ws.handleUpgrade(req, socket, head),
    load: (def: PluginDef<any>): Promise<PluginInfo> => registry.load(def),
    unload: (id: string, opts?: { cascade?: boolean }) => registry.unload(id, opts),
    reload: (id: string, def?: PluginDef<any>) => registry.reload(id, def),
    /** Bundles a plugin file as it is now and loads it, replacing a loaded plugin of the same id. */
    async importPlugin(file: string): Promise<PluginInfo> {
      const def = await importPluginFile(file, join(stateDir, 'hot'));
      const state = registry.state(def.id);
      return state === 'active' ? registry.reload(def.id, def) : registry.load(def);
    },
    plugins: () => registry.info(),
    owned,
    resolve: <T>(token: Token<T>): T | undefined => services.resolve(token),
    phase: () => phase,
  };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackIp(host) || host.startsWith('127.');
}
