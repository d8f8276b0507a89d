// Shared helpers for the end-to-end tests: tracked server processes, raw HTTP (custom Host header),
// WebSocket connect, an SSE reader and output polling. Not a test file (no `.test.ts` suffix).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePort, spawnServer, type SpawnedServer, type SpawnOptions } from '../helpers/server.ts';

const live = new Set<SpawnedServer>();
const dirs = new Set<string>();

// Safety net: never leave a server process behind, even when the test process dies.
process.once('exit', () => {
  for (const server of live) server.process.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh state directory, removed by `stopAll()` (or at exit). */
export function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  dirs.add(dir);
  return dir;
}

/**
 * When spawnServer gives up (20 s start timeout) it rejects without stopping the child, whose open
 * pipes would then keep this test process alive forever. The child is found by its parent (this
 * process) and its unique --port argument, and killed by pid.
 */
function killUnreadyChild(port: number): void {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = args.indexOf('--port');
      if (ppid === process.pid && at !== -1 && args[at + 1] === String(port)) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // the process ended meanwhile, or /proc is not available
    }
  }
}

/** Starts the real server (tracked, so `stopAll()` and the exit hook stop it). */
export async function start(options: SpawnOptions = {}): Promise<SpawnedServer> {
  const port = options.port ?? await freePort();
  let server: SpawnedServer;
  try {
    server = await spawnServer({ ...options, port, stateDir: options.stateDir ?? stateDir() });
  } catch (error) {
    killUnreadyChild(port);
    throw error;
  }
  live.add(server);
  server.process.once('exit', () => live.delete(server));
  return server;
}

/** Starts several servers, two at a time (a 2-core machine; the helper's start timeout is 20 s). */
export async function startAll(list: SpawnOptions[]): Promise<SpawnedServer[]> {
  const servers: SpawnedServer[] = [];
  for (let i = 0; i < list.length; i += 2) servers.push(...await Promise.all(list.slice(i, i + 2).map((options) => start(options))));
  return servers;
}

/** SIGTERM, falling back to SIGKILL after 5 s. */
export async function stop(server: SpawnedServer): Promise<void> {
  if (server.process.exitCode !== null || server.process.signalCode !== null) return;
  const fallback = setTimeout(() => server.process.kill('SIGKILL'), 5000);
  try { await server.stop(); } finally { clearTimeout(fallback); }
}

/** Stops every server still running and removes every state dir created here. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((server) => stop(server)));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

export interface RawResponse { status: number; headers: IncomingHttpHeaders; text: string; json<T = Record<string, unknown>>(): T }

/** A plain node:http request (lets tests set Host and other headers fetch would not send as given). */
export function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export type WsResult = { ws: WebSocket; status?: undefined } | { ws?: undefined; status: number; body: string };

/** Connects to `/ws`; resolves with the open socket, or with the HTTP status of a refused upgrade. */
export function wsConnect(url: string, headers: Record<string, string> = {}): Promise<WsResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', (error) => reject(error));
  });
}

/**
 * Sends one JSON message and resolves with the first JSON message received afterwards that `accept`
 * matches (plugins may push their own messages, e.g. a status on connect).
 */
export function wsRequest(ws: WebSocket, message: unknown, accept: (reply: Record<string, unknown>) => boolean = () => true, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const reply = JSON.parse(String(data)) as Record<string, unknown>;
      if (!accept(reply)) return;
      clearTimeout(timer);
      ws.off('message', onMessage);
      resolve(reply);
    };
    const timer = setTimeout(() => { ws.off('message', onMessage); reject(new Error('No matching WebSocket reply')); }, timeoutMs);
    ws.on('message', onMessage);
    ws.send(JSON.stringify(message));
  });
}

/** Sends `{type: 'ping'}` and resolves with the `pong` reply. */
export const wsPing = (ws: WebSocket) => wsRequest(ws, { type: 'ping' }, (reply) => reply.type === 'pong');

export function wsClose(ws: WebSocket): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    ws.once('close', () => resolve());
    ws.close();
    setTimeout(() => { ws.terminate(); resolve(); }, 2000).unref();
  });
}

export interface SseEvent { event: string; data: unknown }
export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  response: IncomingMessage;
  /** The next event (optionally the next one matching `accept`), waiting up to `timeoutMs`. */
  next(accept?: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens a Server-Sent Events stream with node:http and parses it into events. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false }, (res) => {
      const events: SseEvent[] = [];
      let waiter: (() => void) | undefined;
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (!data.length) continue; // comments (heartbeats)
          events.push({ event, data: JSON.parse(data.join('\n')) });
        }
        waiter?.();
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        response: res,
        async next(accept = () => true, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const index = events.findIndex(accept);
            if (index !== -1) return events.splice(0, index + 1).pop()!;
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`No matching SSE event within ${timeoutMs} ms`);
            await new Promise<void>((wake) => { waiter = wake; setTimeout(wake, Math.min(left, 250)); });
          }
        },
        close: () => { req.destroy(); },
      });
    });
    req.on('error', reject); // after the stream resolved (e.g. close()), rejecting is a no-op
    req.end();
  });
}

/** Polls `probe` until it returns a truthy value (failing after `timeoutMs`). */
export async function waitFor<T>(probe: () => T | undefined | null | false, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** JSON POST with fetch. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}
