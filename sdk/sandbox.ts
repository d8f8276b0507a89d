import { createToken } from './tokens.ts';

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

export interface ShellResult extends RunResult {
  exitCode: number | null;
  /** The command ran inside bubblewrap (read-only root, private /tmp, optional network). */
  sandboxed: boolean;
}

/** Provided by the trusted `sandbox` plugin as `core.sandbox`; the only way plugins run untrusted code. */
export interface SandboxService {
  /** Runs code in a fresh isolate: memory limit, deadline, output cap, only the given capabilities. */
  runCode(request: RunCodeRequest): Promise<RunResult>;
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

export const coreSandbox = createToken<SandboxService>('core.sandbox');
