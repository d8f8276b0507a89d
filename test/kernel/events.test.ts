import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defineEvent, definePlugin, Type, type PluginContext } from '../../sdk/index.ts';
import { createTestKernel } from '../../sdk/testing.ts';

const quiet = { level: 'error' as const, write: () => {} };
interface Order { id: string; total: number }
const orderPlaced = defineEvent<Order>('shop.order.placed', Type.Object({ id: Type.String(), total: Type.Number() }));
const otherEvent = defineEvent<{ id: string }>('shop.order.cancelled');

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

/** Compile-time checks: payloads are typed by the event definition (tsc fails if these stop erroring). */
export function typedBusChecks(ctx: PluginContext): void {
  ctx.on(orderPlaced, (order) => { const total: number = order.total; void total; });
  // @ts-expect-error total must be a number
  ctx.emit(orderPlaced, { id: 'x', total: 'ten' });
  // @ts-expect-error the listener's payload has no such field
  ctx.on(orderPlaced, (order) => order.missing);
}

test('listeners receive the typed payload; throwing and rejecting listeners are isolated and logged', async () => {
  const received: string[] = [];
  const rejected = deferred();
  let emitter: PluginContext<any> | undefined;
  const t = await createTestKernel({
    log: quiet,
    plugins: [
      definePlugin({ id: 'first', version: '1', setup(ctx) { ctx.on(orderPlaced, (o) => { received.push(`first:${o.id}:${o.total}`); }); } }),
      definePlugin({ id: 'thrower', version: '1', setup(ctx) { ctx.on(orderPlaced, () => { throw new Error('sync listener broke'); }); } }),
      definePlugin({
        id: 'rejecter', version: '1',
        setup(ctx) {
          ctx.on(orderPlaced, async () => {
            await Promise.resolve();
            queueMicrotask(() => setImmediate(rejected.resolve));
            throw new Error('async listener broke');
          });
        },
      }),
      definePlugin({ id: 'last', version: '1', setup(ctx) { ctx.on(orderPlaced, (o) => { received.push(`last:${o.id}`); }); } }),
      definePlugin({ id: 'unrelated', version: '1', setup(ctx) { ctx.on(otherEvent, () => { received.push('unrelated'); }); } }),
      definePlugin({ id: 'emitter', version: '1', setup(ctx) { emitter = ctx; } }),
    ],
  });
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => { unhandled.push(reason); };
  process.on('unhandledRejection', onUnhandled);
  try {
    assert.not.throws(() => emitter!.emit(orderPlaced, { id: 'o-1', total: 42 }));
    assert.equal(received, ['first:o-1:42', 'last:o-1'], 'listeners before and after the failing ones ran; other events untouched');
    await rejected.promise;
    await new Promise((r) => setImmediate(r));

    const errors = t.kernel.logs.entries().filter((e) => e.level === 'error' && e.message.includes('shop.order.placed'));
    assert.equal(errors.map((e) => e.source).sort(), ['rejecter', 'thrower'], 'each failure is attributed to its plugin');
    assert.ok(errors.every((e) => e.tags.includes('events')));
    assert.equal(unhandled, [], 'a rejecting listener is not an unhandled rejection');

    // Emitting again still reaches the healthy listeners.
    emitter!.emit(orderPlaced, { id: 'o-2', total: 1 });
    assert.equal(received.slice(2), ['first:o-2:1', 'last:o-2']);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await t.close();
  }
});

test('a listener emitting from inside a listener and an unloaded listener', async () => {
  const seen: string[] = [];
  let emitter: PluginContext<any> | undefined;
  const t = await createTestKernel({
    log: quiet,
    plugins: [
      definePlugin({
        id: 'chain', version: '1',
        setup(ctx) {
          ctx.on(orderPlaced, (o) => { seen.push(`placed:${o.id}`); ctx.emit(otherEvent, { id: o.id }); });
          ctx.on(otherEvent, (o) => { seen.push(`cancelled:${o.id}`); });
        },
      }),
      definePlugin({ id: 'leaver', version: '1', setup(ctx) { ctx.on(orderPlaced, (o) => { seen.push(`leaver:${o.id}`); }); } }),
      definePlugin({ id: 'emitter', version: '1', setup(ctx) { emitter = ctx; } }),
    ],
  });
  try {
    emitter!.emit(orderPlaced, { id: 'a', total: 1 });
    assert.equal(seen, ['placed:a', 'cancelled:a', 'leaver:a']);
    await t.kernel.unload('leaver');
    emitter!.emit(orderPlaced, { id: 'b', total: 1 });
    assert.equal(seen.slice(3), ['placed:b', 'cancelled:b']);
  } finally {
    await t.close();
  }
});

test.run();
