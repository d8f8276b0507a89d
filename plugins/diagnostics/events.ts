import type { AuditEntry, SseFrame } from '../../sdk/index.ts';

/**
 * Turns pushed items into an async iterable for an SSE response: a snapshot first, then each pushed
 * item; `return()` (client gone) unsubscribes, and `until` aborting (plugin unloading) ends the feed.
 */
export function liveFeed<T>(first: SseFrame, subscribe: (push: (item: T) => void) => () => void, frame: (item: T) => SseFrame, until: AbortSignal): AsyncIterable<SseFrame> {
  return {
    [Symbol.asyncIterator]() {
      const queue: SseFrame[] = [first];
      let wake: (() => void) | undefined;
      let done = false;
      const unsubscribe = subscribe((item) => { queue.push(frame(item)); wake?.(); });
      const end = () => { done = true; unsubscribe(); wake?.(); };
      until.addEventListener('abort', end, { once: true });
      return {
        async next() {
          while (!queue.length && !done) await new Promise<void>((resolve) => { wake = resolve; });
          wake = undefined;
          return done ? { done: true, value: undefined } : { done: false, value: queue.shift()! };
        },
        async return() {
          until.removeEventListener('abort', end);
          end();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

export const auditFrame = (entry: AuditEntry): SseFrame => ({ event: 'entry', data: { type: 'entry', entry } });
