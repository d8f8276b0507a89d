import type { TSchema } from 'typebox';
import { createToken, defineEvent } from './tokens.ts';
import type { Access, AuditSeverity, AuditType, LogLevel, PluginDef, PluginState } from './types.ts';

/** Token checks shared by the kernel and plugins that need them (pairing, terminal authorization). */
export interface AuthService {
  /** An API token is configured. */
  readonly tokenConfigured: boolean;
  /** The configured token, for flows that hand it out (pairing). */
  token(): string | undefined;
  /** Constant-time comparison of a candidate against the configured token. */
  verify(candidate: string | undefined): boolean;
  /** Constant-time comparison of two secrets of any length. */
  equal(a: string, b: string): boolean;
  isLoopback(ip: string): boolean;
}

export interface LogEntry { timestamp: number; level: LogLevel; source: string; tags: string[]; message: string }
export interface AuditEntry {
  timestamp: string; type: AuditType; summary: string; metadata: Record<string, unknown>;
  severity: AuditSeverity; traceId: string;
}
export interface PluginInfo { id: string; version: string; state: PluginState; error?: string; provides: string[]; requires: string[] }
export interface RouteInfo {
  pluginId: string; method: string; path: string; access: Access; summary?: string; description?: string;
  tags?: string[]; multipart: boolean;
  schema: { params?: TSchema; query?: TSchema; headers?: TSchema; body?: TSchema; response?: Record<number, TSchema> };
}
export interface OwnedResources { routes: number; listeners: number; timers: number; wsHandlers: number; services: number; disposables: number }

/** Read-only view of the kernel for first-party introspection plugins. */
export interface KernelInfo {
  readonly version: string;
  readonly startedAt: number;
  phase(): 'starting' | 'running' | 'stopping';
  plugins(): PluginInfo[];
  routes(): RouteInfo[];
  services(): string[];
  logs(): readonly LogEntry[];
  owned(pluginId: string): OwnedResources;
  /** Runs a real query on a storage database; false when storage is broken. */
  probeStorage(): Promise<boolean>;
}

/**
 * Loads and unloads plugins at run time (for plugins that host others, such as VFS plugins). Lifecycle
 * changes run one at a time: never await these from inside a `setup` or a disposable, which already run
 * in that queue. Every change is audited.
 */
export interface PluginHost {
  /** Loads a new plugin; 409 when one with that id is loaded. Resolves with its state (`failed` + error when setup threw). */
  load(def: PluginDef<any>): Promise<PluginInfo>;
  /** Replaces a loaded plugin with a new definition; its own paths answer 503 meanwhile, other routes are untouched. */
  reload(id: string, def: PluginDef<any>): Promise<PluginInfo>;
  /** Unloads a plugin (its dependents first with `cascade`, else 409). Resolves with the ids unloaded. */
  unload(id: string, options?: { cascade?: boolean }): Promise<string[]>;
  state(id: string): PluginState | undefined;
}

export const coreAuth = createToken<AuthService>('core.auth');
export const corePlugins = createToken<PluginHost>('core.plugins');
export const coreKernel = createToken<KernelInfo>('core.kernel');

/** Emitted for every audit entry; the diagnostics plugin buffers and streams them. */
export const auditRecorded = defineEvent<AuditEntry>('security.audit.recorded');
/** Emitted for every log entry after it enters the ring buffer. */
export const logWritten = defineEvent<LogEntry>('kernel.log.written');

