// Spawns the real server (`bin/svc.ts`, what `npm start` runs) for end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface SpawnedServer {
  url: string;
  port: number;
  stateDir: string;
  process: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL (no cleanup) and wait for exit. */
  kill(): Promise<void>;
  /** Removes the state dir (call after the last restart). */
  cleanup(): void;
}

export interface SpawnOptions { env?: Record<string, string>; args?: string[]; stateDir?: string; port?: number }

/** A port the OS just handed out (listen on 0, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `bin/svc.ts` with its own state dir and port and resolves once it printed its URL. */
export async function spawnServer(options: SpawnOptions = {}): Promise<SpawnedServer> {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const port = options.port ?? await freePort();
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', join(root, 'bin/svc.ts'), '--port', String(port), ...(options.args ?? [])], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_STATE_DIR: stateDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    // Generous: CI machines are 2 cores; a child that never got ready is killed so the test process can end.
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`Server did not start in 60 s:\n${output}`)); }, 60_000);
    const check = () => {
      if (/URL:\s+http/.test(output)) { clearTimeout(timer); resolve(); }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`Server exited with ${code}:\n${output}`)); });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stateDir,
    process: child,
    output: () => output,
    async stop() { child.kill('SIGTERM'); return exited; },
    async kill() { child.kill('SIGKILL'); await exited; },
    cleanup: () => rmSync(stateDir, { recursive: true, force: true }),
  };
}
