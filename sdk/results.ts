import type { Readable } from 'node:stream';

const brand = Symbol.for('svc.result');

export interface ReplyResult { readonly [brand]: 'reply'; status: number; body: unknown; headers: Record<string, string> }
/** One Server-Sent Event; `comment` writes a `: comment` line instead of data. */
export interface SseFrame { event?: string; id?: string; data?: unknown; comment?: string }
export interface SseResult {
  readonly [brand]: 'sse';
  source: AsyncIterable<SseFrame>;
  /** Writes `: heartbeat` this often (ms) while the source is idle. */
  heartbeatMs?: number;
}
export interface FileResult {
  readonly [brand]: 'file';
  body: Readable | Buffer;
  type: string;
  filename?: string;
}
export type HandlerResult = ReplyResult | SseResult | FileResult;

/** A JSON (or empty) response with an explicit status and headers. */
export function reply(status: number, body?: unknown, headers: Record<string, string> = {}): ReplyResult {
  return { [brand]: 'reply', status, body, headers };
}

/** A Server-Sent Events response; iteration stops when the client disconnects. */
export function sse(source: AsyncIterable<SseFrame>, options: { heartbeatMs?: number } = {}): SseResult {
  return { [brand]: 'sse', source, heartbeatMs: options.heartbeatMs };
}

/** A file or byte response, as an attachment when `filename` is given. */
export function file(body: Readable | Buffer, options: { type: string; filename?: string }): FileResult {
  return { [brand]: 'file', body, ...options };
}

/** The kind of a handler result, or undefined for a plain JSON value. */
export function resultKind(value: unknown): HandlerResult[typeof brand] | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<symbol, HandlerResult[typeof brand]>)[brand] : undefined;
}
