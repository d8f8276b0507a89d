import { HttpError } from './errors.ts';
import { createToken } from './tokens.ts';
import type { ActionParameter } from './agent.ts';
import type { HttpMethod, RouteSchema } from './types.ts';

/** The `{{name}}` placeholder syntax shared by shell commands and custom-action templates. */
export function placeholderPattern(flags: string): RegExp {
  return new RegExp(String.raw`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`, flags);
}

/**
 * A host function offered to sandboxed code. The guest's arguments arrive as copies and the result is
 * copied back; `signal` aborts when the run ends (deadline, disposal), so slow host work stops with it.
 */
export type SandboxCapability = (args: unknown[], signal: AbortSignal) => unknown | Promise<unknown>;

/** Untrusted JavaScript to evaluate in a fresh V8 isolate. */
export interface RunCodeRequest {
  /** The body of an async function: `return` gives the result, `await` works. */
  code: string;
  /** Values bound by name in the code, copied in (e.g. `{params: {city: 'Oslo'}}`). */
  input?: Record<string, unknown>;
  /** Wall-clock deadline for the whole run, including time after an `await` (default 5000). */
  timeoutMs?: number;
  /** Heap limit of the isolate (default 64). */
  memoryMb?: number;
  /** The only host functions the code can call, by name; nothing else of the host is reachable. */
  caps?: Record<string, SandboxCapability>;
  /** Cap on the stringified result (default 64 KiB); a larger one is truncated and the run fails. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

/** How a sandboxed run ended. `output` is the result as text (strings as-is, anything else as JSON). */
export interface RunResult {
  ok: boolean;
  output: string;
  error?: string;
  durationMs: number;
}

/** A shell command for the single shell choke point. */
export interface ShellRequest {
  /** `sh` command line; `{{name}}` placeholders take `params` values, which the shell never parses as code. */
  command: string;
  params?: Record<string, string>;
  /** Default 30 s; the whole process group is killed at the deadline. */
  timeoutMs?: number;
  /** Cap on stdout+stderr together (default 64 KiB); the process is killed when it is exceeded. */
  maxOutputBytes?: number;
  /** Allow network access inside the OS sandbox (default false). */
  network?: boolean;
  /** Who asks (e.g. `custom-action:GET_UPTIME`), for the audit log. */
  origin: string;
  signal?: AbortSignal;
}

/** How a shell command ended, with its exit code. */
export interface ShellResult extends RunResult {
  exitCode: number | null;
  /** The command ran inside bubblewrap (read-only root, private /tmp, optional network). */
  sandboxed: boolean;
}

/** A module format esbuild can emit. */
export type ModuleFormat = 'esm' | 'cjs' | 'iife';

/** Bundles a project of virtual files; nothing of the host filesystem is read. */
export interface CompileRequest {
  /** The entry file, a project path such as `src/index.ts`. */
  entry: string;
  /** A project file's content, or undefined when there is no such file. */
  read(path: string): Promise<Uint8Array | string | undefined>;
  /** Default `esm`. */
  format?: ModuleFormat;
  /** An esbuild target such as `es2022` (the default) or `esnext`. */
  target?: string;
  minify?: boolean;
}

/** A compile problem at a place in a project file (`line` counts from 1, `column` from 0; 0/0 when unplaced). */
export interface CompileMessage { file: string; line: number; column: number; message: string }

/** The bundle (`code`) when `ok`, else the errors; file names are project paths, never host paths. */
export interface CompileResult {
  ok: boolean;
  code: string;
  errors: CompileMessage[];
  warnings: CompileMessage[];
  durationMs: number;
}

/** Host functions a guest plugin may use: `log` always, the others only when its `capabilities` declare them. */
export interface ModuleCapabilities {
  log?: SandboxCapability;
  fetch?: SandboxCapability;
}

/** A compiled guest plugin (output of `compile`, any format) to evaluate in its own long-lived isolate. */
export interface LoadModuleRequest {
  code: string;
  /** Heap limit of the isolate (default 64). */
  memoryMb?: number;
  /** Wall-clock deadline of each call into the module (default 5000); past it the isolate is disposed. */
  timeoutMs?: number;
  /**
   * A module that declares no result-bearing capability (only `log`) has its calls started on the host's
   * thread: much faster than a hop to the isolate's, but the handler's first synchronous stretch holds
   * the event loop, so it may last at most this long (default 200 ms) or the module is stopped
   * (PLUGIN_TIMEOUT). 0: every call runs on the isolate's thread.
   */
  syncBudgetMs?: number;
  /** Wall-clock deadline for evaluating the code and running the guest's `setup` (default 5000). */
  setupTimeoutMs?: number;
  /** Calls in flight at once (default 16); more are refused with 429. */
  maxConcurrentCalls?: number;
  caps?: ModuleCapabilities;
}

/** A route a guest declared; `schema` is a JSON copy the host may validate with (patterns and the like are checked in the isolate). */
export interface GuestRoute {
  /** What `call` takes to run this route's handler. */
  handler: string;
  method: HttpMethod;
  /** Relative to wherever the host mounts the guest, e.g. `/forecast/:city`. */
  path: string;
  summary?: string;
  description?: string;
  schema: Pick<RouteSchema, 'params' | 'query' | 'body' | 'response'>;
}

/** An agent action a guest declared. */
export interface GuestAction {
  handler: string;
  name: string;
  description: string;
  similes: string[];
  parameters: ActionParameter[];
}

/** What a guest plugin declared in `definePlugin` and registered in its `setup`. */
export interface GuestManifest {
  id: string;
  version: string;
  description?: string;
  /** Declared capabilities beyond `log` (e.g. `fetch`). */
  capabilities: string[];
  routes: GuestRoute[];
  actions: GuestAction[];
}

/** A request as a guest route handler sees it (no headers: they carry the caller's credentials). */
export interface GuestRouteInput { method: string; path: string; params: unknown; query: unknown; body: unknown }
/** A guest route's answer: `reply(status, body)`, a plain value (200) or nothing (204). */
export interface GuestRouteResult { status: number; body: unknown }
/** An action invocation: its parameters and, when the agent invokes it, the message and room. */
export interface GuestActionInput { params: Record<string, string>; text?: string; roomId?: string }
/** An action's answer for the agent. */
export interface GuestActionResult { text: string; data?: unknown }

/**
 * Why a module's isolate ended: its deadline, its memory limit, a V8 failure, work outside any call
 * (`runaway`), or disposal by its owner.
 */
export type ModuleExitReason = 'deadline' | 'memory' | 'crashed' | 'runaway' | 'disposed';
/** How a module's isolate ended; `message` is what its failed calls answered. */
export interface ModuleExit { reason: ModuleExitReason; message: string }

/** A loaded guest plugin: its manifest, and calls into its isolate. */
export interface SandboxModule {
  readonly manifest: GuestManifest;
  /**
   * Runs a handler in the isolate with a copy of `input`; resolves with a copy of its result. A guest
   * error becomes an HttpError (its own status and code, or 500 EXECUTION_FAILED); a call that ends
   * the isolate rejects with 503 PLUGIN_TIMEOUT, 500 PLUGIN_MEMORY_LIMIT or 500 PLUGIN_CRASHED.
   */
  call(handler: string, input: GuestRouteInput): Promise<GuestRouteResult>;
  call(handler: string, input: GuestActionInput): Promise<GuestActionResult>;
  /** Disposes the isolate (idempotent); `exited` resolves with reason `disposed`. */
  dispose(): void;
  /** Resolves once the isolate is gone, saying why. */
  readonly exited: Promise<ModuleExit>;
}

/** A guest that could not be loaded; `guest` names it when its `definePlugin` ran before the failure. */
export class ModuleLoadError extends HttpError {
  constructor(status: number, code: string, message: string, readonly guest?: { id: string; version: string }, details?: unknown[]) {
    super(status, code, message, details);
  }
}

/** Provided by the trusted `sandbox` plugin as `core.sandbox`; the only way plugins run untrusted code. */
export interface SandboxService {
  /** Runs code in a fresh isolate: memory limit, deadline, output cap, only the given capabilities. */
  runCode(request: RunCodeRequest): Promise<RunResult>;
  /** Bundles a project's virtual files with esbuild (relative imports and `@svc/sdk` only). */
  compile(request: CompileRequest): Promise<CompileResult>;
  /**
   * Evaluates a compiled guest plugin in its own isolate and runs its `setup`; rejects with a
   * ModuleLoadError (422 INVALID_PLUGIN, 503 PLUGIN_TIMEOUT, 500 PLUGIN_MEMORY_LIMIT / PLUGIN_CRASHED).
   */
  loadModule(request: LoadModuleRequest): Promise<SandboxModule>;
  /** Runs a shell command (scrubbed env, scratch dir, caps, audited); throws 403 SHELL_DISABLED when shell is off. */
  runShell(request: ShellRequest): Promise<ShellResult>;
  readonly shell: {
    /** The shell permission; a permissions plugin may drive it. */
    enabled(): boolean;
    setEnabled(enabled: boolean, reason?: string): void;
    /** Commands run inside bubblewrap. */
    readonly isolated: boolean;
  };
}

/** The token of the sandbox service. */
export const coreSandbox = createToken<SandboxService>('core.sandbox');
