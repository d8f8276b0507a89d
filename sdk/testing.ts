import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKernel, type Kernel, type KernelOptions } from '../kernel/index.ts';

export interface TestKernel {
  kernel: Kernel;
  stateDir: string;
  /** Sends one HTTP request to the kernel over loopback. */
  inject(request: InjectRequest): Promise<InjectResponse>;
  /** The loopback base URL (listening starts on first use). */
  url(): Promise<string>;
  /** Stops the kernel and removes its temporary state dir (unless one was given). */
  close(): Promise<void>;
  /**
   * Stops this kernel and starts a new one with the same options on the same state dir (what survives
   * a restart); `changes` adjusts the options. The new kernel owns the dir from then on.
   */
  restart(changes?: KernelOptions): Promise<TestKernel>;
}
export interface InjectRequest { method?: string; url: string; headers?: Record<string, string>; body?: unknown }
export interface InjectResponse { status: number; headers: Headers; body: any; text: string }

/**
 * Starts a kernel for tests: a temporary state dir, strict mode (a failing plugin throws), quiet logs.
 */
export async function createTestKernel(options: KernelOptions = {}): Promise<TestKernel> {
  const ownDir = options.stateDir === undefined;
  return start({ ...options, stateDir: options.stateDir ?? mkdtempSync(join(tmpdir(), 'svc-test-')) }, ownDir);
}

async function start(options: KernelOptions & { stateDir: string }, ownDir: boolean): Promise<TestKernel> {
  const { stateDir } = options;
  const kernel = createKernel({ strict: true, env: {}, log: { level: 'error' }, ...options });
  await kernel.start();
  let base: Promise<string> | undefined;
  const url = () => (base ??= kernel.listen({ port: 0 }).then((l) => l.url));
  return {
    kernel,
    stateDir,
    url,
    inject: async (request) => inject(await url(), request),
    async close() {
      await kernel.stop();
      if (ownDir) rmSync(stateDir, { recursive: true, force: true });
    },
    async restart(changes = {}) {
      await kernel.stop();
      return start({ ...options, ...changes, stateDir }, ownDir);
    },
  };
}

/** One HTTP request against a base URL; JSON bodies are encoded and decoded. */
export async function inject(base: string, { method = 'GET', url, headers = {}, body }: InjectRequest): Promise<InjectResponse> {
  const raw = typeof body === 'string' || body === undefined ? body : JSON.stringify(body);
  const response = await fetch(base + url, {
    method, body: raw as string | undefined,
    headers: { ...(raw !== undefined && { 'content-type': 'application/json' }), ...headers },
  });
  const text = await response.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
