import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { HttpError } from '../../sdk/errors.ts';
import { resultKind, type FileResult, type ReplyResult, type SseFrame, type SseResult } from '../../sdk/results.ts';
import { redactBySchema } from '../redact.ts';
import type { RouteEntry } from './route-table.ts';

/** Writes a handler's result: plain value → 200 JSON, undefined → 204, or a reply/sse/file result. */
export function respond(ctx: Context, result: unknown, entry: RouteEntry, signal: () => AbortSignal): void {
  switch (resultKind(result)) {
    case 'reply': {
      const { status, body, headers } = result as ReplyResult;
      ctx.status = status;
      ctx.set(headers);
      if (body !== undefined) ctx.body = redact(entry, status, body);
      return;
    }
    case 'sse':
      return streamEvents(ctx, result as SseResult, signal());
    case 'file': {
      const { body, type, filename } = result as FileResult;
      ctx.type = type;
      if (filename) ctx.attachment(filename);
      ctx.body = body;
      return;
    }
    default:
      if (result === undefined) ctx.status = 204;
      else ctx.body = redact(entry, 200, result);
  }
}

function redact(entry: RouteEntry, status: number, body: unknown): unknown {
  const schema = entry.redact[status];
  return schema ? redactBySchema(schema, body) : body;
}

/** Pumps an async iterable into an SSE response; stops (and returns the iterator) on disconnect. */
function streamEvents(ctx: Context, result: SseResult, signal: AbortSignal): void {
  const stream = new PassThrough();
  ctx.status = 200;
  ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  ctx.body = stream;
  const heartbeat = result.heartbeatMs ? setInterval(() => stream.write(': heartbeat\n\n'), result.heartbeatMs) : undefined;
  const iterator = result.source[Symbol.asyncIterator]();
  const stop = () => { void iterator.return?.(); };
  signal.addEventListener('abort', stop, { once: true });
  void (async () => {
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done || signal.aborted) break;
        stream.write(formatFrame(next.value));
      }
    } catch (error) {
      const message = HttpError.is(error) ? error.message : 'Stream failed';
      if (!signal.aborted) stream.write(formatFrame({ event: 'error', data: { error: message } }));
    } finally {
      clearInterval(heartbeat);
      signal.removeEventListener('abort', stop);
      stream.end();
    }
  })();
}

export function formatFrame(frame: SseFrame): string {
  if (frame.comment !== undefined) return `: ${frame.comment}\n\n`;
  let out = '';
  if (frame.event) out += `event: ${frame.event}\n`;
  if (frame.id) out += `id: ${frame.id}\n`;
  const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data ?? null);
  for (const line of data.split('\n')) out += `data: ${line}\n`;
  return out + '\n';
}
