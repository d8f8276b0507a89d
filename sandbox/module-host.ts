import type IsolatedVM from 'isolated-vm';
import {
  HttpError, ModuleLoadError, type GuestActionInput, type GuestManifest, type GuestRouteInput, type LoadModuleRequest,
  type ModuleExit, type ModuleExitReason, type SandboxModule,
} from '../sdk/index.ts';
import { createGate } from './gate.ts';
import { checkInfo, checkManifest, ManifestProblem, parseGuestJson, type GuestInfo } from './guest-manifest.ts';
import { dispose } from './isolate-pool.ts';

type Ivm = typeof IsolatedVM;
type CompiledScript = IsolatedVM.Script & IsolatedVM.CachedDataResult & { cachedDataRejected?: boolean };
type Control = IsolatedVM.Reference<(op: string, arg: string, payload: string) => string | null | Promise<string>>;

const DEFAULTS = { memoryMb: 64, timeoutMs: 5000, setupTimeoutMs: 5000, maxConcurrentCalls: 16, syncBudgetMs: 200 };
/** Results larger than this (as JSON text) fail the call. */
const MAX_RESULT_CHARS = 4 * 1024 * 1024;
const MAX_MANIFEST_CHARS = 512 * 1024;
const MAX_CAPABILITY_ARGS_CHARS = 1024 * 1024;
/**
 * Guest code runs only inside calls, each under a deadline. Work it starts that outlives its call (a
 * continuation after a late capability answer) has none, so an idle isolate is watched: more CPU than
 * this in one check interval while no call is in flight means it spins on its own and is stopped.
 */
const IDLE_CHECK_MS = 1000;
const IDLE_CPU_BUDGET_NS = 250_000_000n;
const CALL = { arguments: { copy: true }, result: { promise: true, copy: true } } as const;

export interface ModuleHostOptions {
  /** The guest SDK script (guest-sdk-script.ts), built once. */
  guestSdk(): Promise<string>;
  /** Loads in progress at once; more are refused with 429 (each holds a fresh isolate for up to its setup deadline). */
  maxConcurrentLoads: number;
  onCatastrophicError(message: string): void;
}

/** Loads guest plugins into long-lived isolates of their own (never from the single-use pool). */
export function createModuleHost(ivm: Ivm, options: ModuleHostOptions) {
  const live = new Set<LiveModule>();
  const loads = createGate(options.maxConcurrentLoads, 'plugin loads');
  let cachedData: IsolatedVM.ExternalCopy<ArrayBuffer> | undefined;
  let closed = false;

  async function loadModule(request: LoadModuleRequest): Promise<SandboxModule> {
    if (closed) throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'The sandbox is shut down');
    const leave = loads.enter();
    try {
      return await load(request, { ...DEFAULTS, ...definedOnly(request) });
    } finally {
      leave();
    }
  }

  /** A fresh isolate: the guest SDK, then the guest's code, then its setup, all under one setup deadline. */
  async function load(request: LoadModuleRequest, settings: typeof DEFAULTS): Promise<SandboxModule> {
    const sdk = await options.guestSdk();
    const module = new LiveModule(ivm, settings, request, options.onCatastrophicError, () => live.delete(module));
    live.add(module);
    const deadline = setTimeout(() => module.kill('deadline', `loading took longer than ${settings.setupTimeoutMs} ms`), settings.setupTimeoutMs);
    let info: GuestInfo | undefined;
    try {
      const context = await module.isolate.createContext();
      module.control = await bootSdk(module, context, sdk, settings.setupTimeoutMs);
      await evaluateGuest(module, context, request.code, settings.setupTimeoutMs);
      info = checkInfo(await module.run('info', settings.setupTimeoutMs, 'definePlugin'));
      module.id = info.id;
      module.declared = new Set(info.capabilities);
      module.synchronous = settings.syncBudgetMs > 0 && info.capabilities.every((name) => name === 'log');
      const checked = checkManifest(info, await module.run('setup', settings.setupTimeoutMs, 'setup'));
      module.ready(checked.manifest, checked.verify);
      return module;
    } catch (error) {
      throw module.loadFailure(error, info);
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Runs the guest SDK script (from V8's cached code after the first time) and boots it with the capability Reference. */
  async function bootSdk(module: LiveModule, context: IsolatedVM.Context, sdk: string, timeout: number): Promise<Control> {
    const script = await module.isolate.compileScript(sdk, { filename: 'svc-guest-sdk.js', ...(cachedData ? { cachedData } : { produceCachedData: true }) }) as CompiledScript;
    if (script.cachedDataRejected) cachedData = undefined;
    cachedData ??= script.cachedData;
    const boot = await script.run(context, { reference: true, timeout }) as IsolatedVM.Reference<(caps: unknown) => unknown>;
    const control = await boot.apply(undefined, [module.capabilities], { result: { reference: true }, timeout }) as Control;
    boot.release();
    script.release();
    return control;
  }

  return {
    loadModule,
    /** Disposes every module isolate (sandbox shutdown). */
    close(): void {
      closed = true;
      for (const module of [...live]) module.kill('disposed', 'the sandbox shut down');
    },
  };
}

/**
 * Evaluates the compiled guest as an ES module (CommonJS and IIFE bundles are valid modules too; the
 * guest's plugin is found through its definePlugin call). Guest mistakes become ManifestProblems;
 * a killed isolate's error passes through.
 */
async function evaluateGuest(module: LiveModule, context: IsolatedVM.Context, code: string, timeout: number): Promise<void> {
  const guestError = (prefix: string) => (error: Error) => {
    if (module.exit || /timed out|disposed/i.test(error.message)) throw error;
    throw new ManifestProblem(`${prefix}${error.name}: ${error.message}`);
  };
  const guest = await module.isolate.compileModule(code, { filename: 'plugin.js' }).catch(guestError('The plugin code does not parse: '));
  try {
    // Bundles have no imports left: anything still imported was never compiled.
    await guest.instantiate(context, (specifier) => { throw new Error(`Import "${specifier}" is not available: compile the plugin first`); });
  } catch (error) {
    guestError('')(error as Error);
  }
  await guest.evaluate({ timeout }).catch(guestError('The plugin\'s code threw while loading: '));
}

/** One guest's isolate: calls with deadlines, an idle watchdog, and a single recorded exit. */
class LiveModule implements SandboxModule {
  readonly isolate: IsolatedVM.Isolate;
  /** The host side of every capability call the guest SDK makes. */
  readonly capabilities: IsolatedVM.Reference<(name: string, args: string) => Promise<string>>;
  control: Control | undefined;
  /** The guest's id, once its definePlugin has been read. */
  id: string | undefined;
  declared = new Set<string>();
  /** Calls may run on this thread (see `exchange`). */
  synchronous = false;
  exit: ModuleExit | undefined;
  manifest!: GuestManifest;
  readonly exited: Promise<ModuleExit>;
  private verify = new Map<string, string[]>();
  private resolveExit!: (exit: ModuleExit) => void;
  private readonly ended = new AbortController();
  private readonly gate: ReturnType<typeof createGate>;
  private inFlight = 0;
  private busy = true;
  private lastCpu = 0n;
  private watchdog: NodeJS.Timeout | undefined;
  private crash: string | undefined;

  constructor(
    ivm: Ivm,
    private readonly settings: typeof DEFAULTS,
    private readonly request: LoadModuleRequest,
    onCatastrophicError: (message: string) => void,
    private readonly forget: () => void,
  ) {
    this.exited = new Promise((resolve) => { this.resolveExit = resolve; });
    this.gate = createGate(settings.maxConcurrentCalls, 'calls into this plugin');
    this.isolate = new ivm.Isolate({
      memoryLimit: settings.memoryMb,
      onCatastrophicError: (message) => {
        onCatastrophicError(message);
        this.crash = message;
        this.kill('crashed', `its isolate failed: ${message}`);
      },
    });
    this.capabilities = new ivm.Reference((name: string, args: string) => this.capability(name, args));
  }

  ready(manifest: GuestManifest, verify: Map<string, string[]>): void {
    this.manifest = manifest;
    this.verify = verify;
    this.watchdog = setInterval(() => this.watch(), IDLE_CHECK_MS);
    this.watchdog.unref();
  }

  call(handler: string, input: GuestRouteInput): Promise<any>;
  call(handler: string, input: GuestActionInput): Promise<any>;
  async call(handler: string, input: GuestRouteInput | GuestActionInput): Promise<unknown> {
    if (this.exit) throw this.exitError(this.exit);
    if (!this.manifest.routes.some((r) => r.handler === handler) && !this.manifest.actions.some((a) => a.handler === handler)) {
      throw new TypeError(`Unknown handler ${handler}`);
    }
    const route = handler.startsWith('route:');
    const payload = JSON.stringify(route ? { request: input, verify: this.verify.get(handler) ?? [] } : input);
    const leave = this.gate.enter();
    const timer = setTimeout(() => this.kill('deadline', `a call ran past its ${this.settings.timeoutMs} ms deadline`), this.settings.timeoutMs);
    try {
      return checkResult(route, this.outcome('call', await this.exchange(handler, payload), 'handler'));
    } finally {
      clearTimeout(timer);
      leave();
    }
  }

  /** Runs `info` or `setup` in the isolate's thread. */
  async run(op: 'info' | 'setup', timeout: number, what: string): Promise<unknown> {
    return this.outcome(op, await this.tracked(() => this.control!.apply(undefined, [op, '', ''], { ...CALL, timeout })), what);
  }

  /**
   * One handler call (see `control` in guest-sdk.ts): start and take on this thread, wait on the
   * isolate's only when needed. Only for modules that cannot have work pending in the isolate: a
   * synchronous call waits for the isolate's lock, so work running there (a continuation after a host
   * answer, which no ivm timeout covers) would block this thread. Modules with result-bearing
   * capabilities (fetch) always go through the isolate's thread.
   */
  private exchange(handler: string, payload: string): Promise<unknown> {
    if (!this.synchronous) return this.tracked(() => this.control!.apply(undefined, ['call', handler, payload], { ...CALL, timeout: this.settings.timeoutMs }));
    return this.tracked(async () => {
      const sync = { arguments: { copy: true }, timeout: Math.min(this.settings.syncBudgetMs, this.settings.timeoutMs) } as const;
      let id: unknown;
      let text: unknown;
      try {
        id = this.control!.applySync(undefined, ['start', handler, payload], sync);
        text = this.control!.applySync(undefined, ['take', String(id), ''], sync);
      } catch (error) {
        if (/timed out/i.test(String((error as Error)?.message))) this.kill('deadline', `a handler computed for more than ${sync.timeout} ms without waiting, which would stall the server`);
        throw error;
      }
      return text ?? this.control!.apply(undefined, ['wait', String(id), ''], { ...CALL, timeout: this.settings.timeoutMs });
    });
  }

  /** Counts a call in flight for the watchdog; a failure means the isolate ended, thrown as its exit. */
  private async tracked(step: () => Promise<unknown>): Promise<unknown> {
    this.inFlight++;
    this.busy = true;
    try {
      return await step();
    } catch (error) {
      throw this.exitError(this.settle(error));
    } finally {
      this.inFlight--;
    }
  }

  /** The guest's answer text as a value; a guest failure comes back as data and is thrown here as an HttpError. */
  private outcome(op: string, text: unknown, what: string): unknown {
    if (typeof text !== 'string' || text.length > MAX_RESULT_CHARS + 1024 || (op !== 'call' && text.length > MAX_MANIFEST_CHARS)) {
      throw new HttpError(500, 'EXECUTION_FAILED', `The plugin's ${what} result is larger than ${op === 'call' ? MAX_RESULT_CHARS : MAX_MANIFEST_CHARS} characters`);
    }
    // Manifests are parsed strictly (their defaults get cloned into requests); results only become responses.
    const outcome = (op === 'call' ? JSON.parse(text) : parseGuestJson(text)) as { ok: boolean; value?: unknown; error?: unknown };
    if (outcome.ok) return outcome.value;
    if (op !== 'call') throw new ManifestProblem(`${what} failed: ${guestError(outcome.error).message}`);
    throw guestError(outcome.error);
  }

  dispose(): void {
    this.kill('disposed', 'it was unloaded');
  }

  /** Ends the isolate once; the first reason wins and every later call fails with it. */
  kill(reason: ModuleExitReason, why: string): void {
    if (this.exit) return;
    this.exit = { reason, message: `Plugin ${this.name()} was stopped: ${why}` };
    clearInterval(this.watchdog);
    this.ended.abort();
    dispose(this.isolate);
    this.capabilities.release();
    this.forget();
    this.resolveExit(this.exit);
  }

  /** The exit a failed `apply` means: ours (deadline, disposal), an ivm timeout, or the memory limit. */
  settle(error: unknown): ModuleExit {
    if (this.exit) return this.exit;
    const message = String((error as Error)?.message ?? error);
    if (/timed out/i.test(message)) this.kill('deadline', `a call ran past its ${this.settings.timeoutMs} ms deadline`);
    else if (/memory limit/i.test(message)) this.kill('memory', `it exceeded its ${this.settings.memoryMb} MB memory limit`);
    else this.kill('crashed', this.crash ?? `its isolate failed: ${message}`);
    return this.exit!;
  }

  exitError(exit: ModuleExit): HttpError {
    const status = exit.reason === 'deadline' || exit.reason === 'disposed' ? 503 : 500;
    const code = { deadline: 'PLUGIN_TIMEOUT', memory: 'PLUGIN_MEMORY_LIMIT', crashed: 'PLUGIN_CRASHED', runaway: 'PLUGIN_CRASHED', disposed: 'PLUGIN_UNAVAILABLE' }[exit.reason];
    return new HttpError(status, code, exit.message);
  }

  /** What a failed load is reported as: the isolate's exit, a guest mistake (422), or a host failure. */
  loadFailure(error: unknown, info: GuestInfo | undefined): Error {
    const guest = info && { id: info.id, version: info.version };
    if (error instanceof ManifestProblem) {
      this.kill('disposed', 'it could not be loaded');
      return new ModuleLoadError(422, 'INVALID_PLUGIN', error.message, guest);
    }
    const failure = HttpError.is(error) ? error : this.exitError(this.settle(error));
    if (!this.exit) this.kill('disposed', 'it could not be loaded');
    return new ModuleLoadError(failure.status, failure.code, failure.message, guest);
  }

  private name(): string {
    return this.id ? `"${this.id}"` : 'module';
  }

  /** A capability call from the guest SDK: always answers a JSON string, `{ok, value}` or `{ok: false, error}`. */
  private async capability(name: string, args: string): Promise<string> {
    try {
      if (typeof name !== 'string' || typeof args !== 'string' || args.length > MAX_CAPABILITY_ARGS_CHARS) throw new TypeError('Invalid capability call');
      const caps = this.request.caps ?? {};
      const cap = Object.hasOwn(caps, name) ? caps[name as keyof typeof caps] : undefined;
      if (!cap) throw new Error(`Capability ${name} is not available`);
      if (name !== 'log' && !this.declared.has(name)) throw new Error(`The plugin did not declare the ${name} capability: add capabilities: ['${name}'] to definePlugin`);
      const parsed = JSON.parse(args) as unknown;
      if (!Array.isArray(parsed)) throw new TypeError('Invalid capability arguments');
      return JSON.stringify({ ok: true, value: await cap(parsed, this.ended.signal) ?? null });
    } catch (error) {
      return JSON.stringify({ ok: false, error: HttpError.is(error) ? `${error.message} (${error.code})` : (error as Error)?.message ?? String(error) });
    }
  }

  private watch(): void {
    if (this.isolate.isDisposed) {
      this.settle(new Error('memory limit'));
      return;
    }
    const cpu = this.isolate.cpuTime;
    if (this.inFlight === 0 && !this.busy && cpu - this.lastCpu > IDLE_CPU_BUDGET_NS) {
      this.kill('runaway', 'it kept running outside any request');
      return;
    }
    this.lastCpu = cpu;
    this.busy = this.inFlight > 0;
  }
}

/** A guest error as an HttpError: 400–599 with a code of its own, else 500 EXECUTION_FAILED. */
function guestError(raw: unknown): HttpError {
  const error = (typeof raw === 'object' && raw !== null ? raw : {}) as { status?: unknown; code?: unknown; message?: unknown; details?: unknown };
  const message = typeof error.message === 'string' ? error.message.slice(0, 2000) : 'The plugin failed';
  const status = typeof error.status === 'number' && Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : 500;
  const code = status !== 500 || error.status === 500 ? (typeof error.code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(error.code) ? error.code : 'EXECUTION_FAILED') : 'EXECUTION_FAILED';
  const details = Array.isArray(error.details) ? error.details.slice(0, 20).map((d) => ({
    path: String((d as { path?: unknown })?.path ?? '').slice(0, 200), message: String((d as { message?: unknown })?.message ?? '').slice(0, 500),
  })) : undefined;
  return new HttpError(status, code, message, details);
}

/** A route result must carry a status 200–599 (no informational ones); an action result a text. */
function checkResult(route: boolean, value: unknown): unknown {
  const result = (typeof value === 'object' && value !== null ? value : {}) as { status?: unknown; body?: unknown; text?: unknown; data?: unknown };
  if (route) {
    if (typeof result.status !== 'number' || !Number.isInteger(result.status) || result.status < 200 || result.status > 599) {
      throw new HttpError(500, 'EXECUTION_FAILED', `The plugin replied with an invalid status ${String(result.status).slice(0, 20)}`);
    }
    return { status: result.status, body: result.body };
  }
  return { text: typeof result.text === 'string' ? result.text : '', ...(result.data !== undefined && { data: result.data }) };
}

function definedOnly(request: LoadModuleRequest): Partial<typeof DEFAULTS> {
  const { memoryMb, timeoutMs, setupTimeoutMs, maxConcurrentCalls, syncBudgetMs } = request;
  return Object.fromEntries(Object.entries({ memoryMb, timeoutMs, setupTimeoutMs, maxConcurrentCalls, syncBudgetMs }).filter(([, v]) => v !== undefined));
}
