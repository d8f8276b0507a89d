import type IsolatedVM from 'isolated-vm';
import { HttpError, type RunCodeRequest, type RunResult, type SandboxCapability } from '../sdk/index.ts';
import { createGate } from './gate.ts';
import { dispose, IsolatePool } from './isolate-pool.ts';

const CODE_DEFAULTS = { timeoutMs: 5000, memoryMb: 64, maxOutputBytes: 64 * 1024 };
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export interface CodeRunnerOptions {
  poolSize: number;
  maxConcurrent: number;
  onCatastrophicError(message: string): void;
}

/** Runs untrusted code in single-use isolates with a memory limit, a wall-clock deadline and an output cap. */
export function createCodeRunner(ivm: typeof IsolatedVM, options: CodeRunnerOptions) {
  const pool = new IsolatePool(ivm, CODE_DEFAULTS.memoryMb, options.poolSize, options.onCatastrophicError);
  const gate = createGate(options.maxConcurrent, 'sandboxed code runs');
  const running = new Set<IsolatedVM.Isolate>();

  async function runCode(request: RunCodeRequest): Promise<RunResult> {
    const started = performance.now();
    const timeoutMs = request.timeoutMs ?? CODE_DEFAULTS.timeoutMs;
    const memoryMb = request.memoryMb ?? CODE_DEFAULTS.memoryMb;
    const maxOutputBytes = request.maxOutputBytes ?? CODE_DEFAULTS.maxOutputBytes;
    const input = Object.entries(request.input ?? {});
    const caps = Object.entries(request.caps ?? {});
    for (const [name] of [...input, ...caps]) if (!IDENTIFIER.test(name)) throw new TypeError(`Sandbox binding "${name}" is not an identifier`);
    const finish = (ok: boolean, output: string, error?: string): RunResult =>
      ({ ok, output, ...(error !== undefined && { error }), durationMs: Math.round((performance.now() - started) * 1000) / 1000 });

    const leave = gate.enter();
    const { isolate, run } = await pool.take(memoryMb).catch((error) => { leave(); throw error; });
    running.add(isolate);
    const ended = new AbortController();
    const refs = caps.map(([, cap]) => new ivm.Reference(bridge(cap, ended.signal)));
    let stoppedBy: 'deadline' | 'caller' | undefined;
    // ivm's own `timeout` stops covering the code after its first `await` (F12): this deadline always holds.
    const stop = (why: 'deadline' | 'caller') => { stoppedBy ??= why; dispose(isolate); };
    const timer = setTimeout(() => stop('deadline'), timeoutMs);
    const onAbort = () => stop('caller');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) onAbort(); // aborted while an isolate was being taken
    try {
      const bindings = new ivm.ExternalCopy({ names: input.map(([name]) => name), values: input.map(([, value]) => value), capNames: caps.map(([name]) => name) });
      const result = await run.apply(undefined, [request.code, bindings.copyInto({ release: true }), maxOutputBytes, ...refs], { timeout: timeoutMs, result: { promise: true, copy: true } });
      const output = capBytes(result.output, maxOutputBytes);
      if (result.truncated || output.length < result.output.length) return finish(false, output, `Output exceeds ${maxOutputBytes} bytes`);
      return finish(true, output);
    } catch (error) {
      if (stoppedBy === 'deadline' || /execution timed out/i.test(String((error as Error)?.message))) return finish(false, '', `Timed out after ${timeoutMs} ms`);
      if (stoppedBy === 'caller') return finish(false, '', 'Cancelled');
      if (/memory limit/i.test(String((error as Error)?.message))) return finish(false, '', `Memory limit of ${memoryMb} MB exceeded`);
      return finish(false, '', describe(error));
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      ended.abort();
      for (const ref of refs) ref.release();
      running.delete(isolate);
      leave();
      // Single use: whatever the code left behind (pending promises, globals) dies with its isolate.
      // Both steps block the event loop briefly, so they wait until the caller has its result.
      setImmediate(() => { dispose(isolate); pool.refill(); });
    }
  }

  return {
    runCode,
    /** Stops every run in flight and drops the pool. */
    async close(): Promise<void> {
      for (const isolate of running) dispose(isolate);
      await pool.close();
    },
  };
}

/** Wraps a capability so that it always resolves: `{ok, value}`, or `{ok: false, error}` with just a message. */
function bridge(cap: SandboxCapability, signal: AbortSignal) {
  return async (...args: unknown[]) => {
    try {
      return { ok: true, value: await cap(args, signal) };
    } catch (error) {
      return { ok: false, error: HttpError.is(error) ? `${error.message} (${error.code})` : (error as Error)?.message ?? String(error) };
    }
  };
}

/** An error from the guest as `Name: message`; isolated-vm hands thrown non-Errors over as they are. */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `Uncaught ${typeof error === 'string' ? error : 'non-Error value'}`;
}

/** Truncates to at most `max` UTF-8 bytes without splitting a character. */
function capBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  return new TextDecoder().decode(Buffer.from(text).subarray(0, max)).replace(/\uFFFD$/, '');
}
