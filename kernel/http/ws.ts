import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AuthService } from '../../sdk/core.ts';
import type { AuditInput, Logger, WsClient } from '../../sdk/types.ts';
import { hostAllowed, presentedWsToken, type AuthSettings } from './auth.ts';

type MessageHandler = (message: Record<string, unknown>, client: WsClient) => void | Promise<void>;
type ConnectHandler = (client: WsClient) => void | Promise<void>;
interface Owned<F> { owner: string; fn: F }

export const WS_PATH = '/ws';
const MAX_PAYLOAD = 64 * 1024;

/** `/ws`: authenticated like HTTP; plugins add message handlers by type and connect hooks; `ping` → `pong`. */
export class WsHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  private readonly handlers = new Map<string, Owned<MessageHandler>[]>();
  private connectHooks: Owned<ConnectHandler>[] = [];
  private readonly clients = new Map<WebSocket, WsClient>();

  constructor(private readonly deps: { auth: AuthService; settings: AuthSettings; log: Logger; audit(entry: AuditInput): void }) {}

  /** Handles an HTTP upgrade; returns false when the path is not `/ws` (the caller may handle it). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) return false;
    const { auth, settings } = this.deps;
    if (!hostAllowed(req.headers.host, settings)) return reject(socket, 403, 'Forbidden'), true;
    if (auth.tokenConfigured && !auth.verify(presentedWsToken(req.headers, url.searchParams, settings))) {
      this.deps.audit({ type: 'policy_decision', severity: 'warn', summary: 'Denied WebSocket connection: missing or invalid token', metadata: { ip: req.socket.remoteAddress } });
      return reject(socket, 401, 'Unauthorized'), true;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    return true;
  }

  on(owner: string, type: string, fn: MessageHandler): () => void {
    const entry = { owner, fn };
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), entry]);
    return () => {
      const rest = (this.handlers.get(type) ?? []).filter((h) => h !== entry);
      if (rest.length) this.handlers.set(type, rest);
      else this.handlers.delete(type);
    };
  }

  onConnect(owner: string, fn: ConnectHandler): () => void {
    const entry = { owner, fn };
    this.connectHooks.push(entry);
    return () => { this.connectHooks = this.connectHooks.filter((h) => h !== entry); };
  }

  broadcast(message: unknown): void {
    const data = JSON.stringify(message);
    for (const ws of this.clients.keys()) if (ws.readyState === ws.OPEN) ws.send(data);
  }

  ownedBy(owner: string): number {
    let count = this.connectHooks.filter((h) => h.owner === owner).length;
    for (const list of this.handlers.values()) count += list.filter((h) => h.owner === owner).length;
    return count;
  }

  close(): void {
    for (const ws of this.clients.keys()) ws.close(1001, 'Server shutting down');
    this.wss.close();
  }

  private accept(ws: WebSocket): void {
    const client: WsClient = { id: randomUUID(), send: (message) => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message)); } };
    this.clients.set(ws, client);
    ws.on('close', () => this.clients.delete(ws));
    ws.on('error', () => this.clients.delete(ws));
    ws.on('message', (data) => {
      let message: Record<string, unknown>;
      try { message = JSON.parse(String(data)); } catch { return; }
      if (typeof message !== 'object' || message === null || typeof message.type !== 'string') return;
      if (message.type === 'ping') return client.send({ type: 'pong' });
      for (const handler of this.handlers.get(message.type) ?? []) this.isolate(handler, () => handler.fn(message, client));
    });
    for (const hook of this.connectHooks) this.isolate(hook, () => hook.fn(client));
  }

  private isolate(owned: { owner: string }, run: () => void | Promise<void>): void {
    const report = (error: unknown) => this.deps.log.error(`WebSocket handler of "${owned.owner}" failed`, { error, tags: ['ws'] });
    try { Promise.resolve(run()).catch(report); } catch (error) { report(error); }
  }
}

function reject(socket: Duplex, status: number, message: string): void {
  socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ error: message, code: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN' })}`);
}
