import type { Static, TSchema, TObject } from 'typebox';
import type { Token, EventDef } from './tokens.ts';

/** Anything the kernel can release when a plugin unloads. */
export type Disposable = { dispose(): void | Promise<void> } | (() => void | Promise<void>);

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route. `token`: the API token when one is configured (default). `public`: anyone.
 * `sensitive`: token, or loopback when no token is configured. `sensitive-strict`: like `sensitive`,
 * but in production a token is required even from loopback.
 */
export type Access = 'public' | 'token' | 'sensitive' | 'sensitive-strict';

export interface RouteSchema {
  params?: TObject;
  query?: TObject;
  headers?: TObject;
  body?: TSchema;
  response?: Record<number, TSchema>;
}

type In<S, K extends keyof RouteSchema, D> = S extends { [P in K]: infer T extends TSchema } ? Static<T> : D;

/** What a route handler receives, typed from its schema. */
export interface RouteRequest<S extends RouteSchema = RouteSchema> {
  params: In<S, 'params', Record<string, string>>;
  query: In<S, 'query', Record<string, string | string[] | undefined>>;
  headers: In<S, 'headers', Record<string, string | string[] | undefined>>;
  body: In<S, 'body', unknown>;
  /** Uploaded files of a multipart route, by field name. */
  files: Record<string, UploadedFile[]>;
  method: string;
  path: string;
  url: string;
  /** Socket remote address (never X-Forwarded-For unless a trusted proxy is configured). */
  ip: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The request presented a valid API token. */
  authenticated: boolean;
  /** The raw token the request presented, if any (for checks such as terminal authorization). */
  presentedToken: string | undefined;
}

export interface UploadedFile {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
}

export interface RouteDef<S extends RouteSchema = RouteSchema> {
  method: HttpMethod;
  /** One path, or several aliases served by the same handler. */
  path: string | string[];
  access?: Access;
  summary?: string;
  description?: string;
  tags?: string[];
  schema?: S;
  /** JSON body limit in bytes (default 1 MiB); larger bodies get 413. */
  bodyLimit?: number;
  /** Accept multipart/form-data uploads. */
  multipart?: boolean;
  handler(req: RouteRequest<S>): unknown | Promise<unknown>;
}

export interface SqlRunResult { changes: number; lastInsertRowid: number }

/** Async SQL API; the same plugin code runs on the embedded store or a server database. */
export interface SqlDatabase {
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T | undefined>;
  run(sql: string, params?: unknown[]): Promise<SqlRunResult>;
  /** Runs `fn` in one transaction; it is durable when the returned promise resolves. */
  tx<T>(fn: (db: Omit<SqlDatabase, 'tx'>) => Promise<T>): Promise<T>;
}

export interface SqlOptions {
  /** Append-only list: each entry runs once, in order. */
  migrations?: string[];
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}
export interface LogFields { tags?: string[]; [key: string]: unknown }

export type AuditSeverity = 'info' | 'warn' | 'error' | 'critical';
export const auditTypes = [
  'sandbox_mode_transition', 'secret_token_replacement_outbound', 'secret_sanitization_inbound',
  'privileged_capability_invocation', 'policy_decision', 'signing_request_submitted',
  'signing_request_rejected', 'signing_request_approved', 'plugin_fallback_attempt',
  'security_kill_switch', 'sandbox_lifecycle', 'fetch_proxy_error',
] as const;
export type AuditType = (typeof auditTypes)[number];
export interface AuditInput {
  type: AuditType;
  summary: string;
  severity?: AuditSeverity;
  metadata?: Record<string, unknown>;
  traceId?: string;
}

export interface WsClient {
  readonly id: string;
  send(message: unknown): void;
}

export interface PluginConfig<C> {
  /** The merged configuration: schema defaults ← embedder options ← env ← persisted overrides. */
  get(): C;
  /** Validates and persists overrides (atomically); secrets are encrypted at rest. */
  set(patch: Partial<C>): Promise<C>;
  /** The configuration with fields marked `secret` replaced by a placeholder. */
  redacted(): C;
}

export interface PluginContext<C = Record<string, unknown>> {
  readonly id: string;
  readonly config: PluginConfig<C>;
  readonly log: Logger;
  /** Aborted when the plugin unloads. */
  readonly signal: AbortSignal;
  readonly storage: {
    /** This plugin's database (one per plugin), migrated. */
    sql(options?: SqlOptions): Promise<SqlDatabase>;
    /** A directory owned by this plugin under the state dir. */
    readonly dir: string;
  };
  provide<T>(token: Token<T>, value: T): void;
  use<T>(token: Token<T>): T;
  tryUse<T>(token: Token<T>): T | undefined;
  route<S extends RouteSchema>(def: RouteDef<S>): void;
  /** Serves files below `dir` at `prefix` (GET); traversal outside `dir` is impossible. */
  static(prefix: string, dir: string, access?: Access): void;
  on<T>(event: EventDef<T>, listener: (payload: T) => void | Promise<void>): void;
  emit<T>(event: EventDef<T>, payload: T): void;
  ws: {
    on(type: string, handler: (message: Record<string, unknown>, client: WsClient) => void | Promise<void>): void;
    onConnect(handler: (client: WsClient) => void | Promise<void>): void;
    broadcast(message: unknown): void;
  };
  /** Repeats `fn` until unload or until the returned function cancels it. */
  setInterval(fn: () => void, ms: number): () => void;
  /** Runs `fn` once after `ms`, unless unloaded first or cancelled with the returned function. */
  setTimeout(fn: () => void, ms: number): () => void;
  /** Adds a disposable to this plugin's stack; released LIFO at unload. */
  track(disposable: Disposable): void;
  audit(entry: AuditInput): void;
}

export interface PluginDef<C extends TObject = TObject> {
  id: string;
  version: string;
  description?: string;
  requires?: Token<any>[];
  optional?: Token<any>[];
  provides?: Token<any>[];
  config?: C;
  /** Milliseconds before setup is abandoned and rolled back (default 10 s). */
  setupTimeoutMs?: number;
  setup(ctx: PluginContext<Static<C>>): void | Promise<void>;
}

export type PluginState = 'registered' | 'loading' | 'active' | 'unloading' | 'inactive' | 'failed';
