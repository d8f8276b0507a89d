import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createToken, defineEvent, definePlugin, type OwnedResources, type PluginContext } from '../../sdk/index.ts';
import { createTestKernel } from '../../sdk/testing.ts';

const quiet = { level: 'error' as const, write: () => {} };
const zero: OwnedResources = { routes: 0, listeners: 0, timers: 0, wsHandlers: 0, services: 0, disposables: 0 };

interface Counter { count(): number }
const counterToken = createToken<Counter>('disposal.counter');
const pinged = defineEvent<{ n: number }>('disposal.ping.sent');

test('unload releases everything a plugin registered, LIFO', async () => {
  const log: string[] = [];
  let ticks = 0;
  let heard = 0;
  let ctxRef: PluginContext | undefined;
  const t = await createTestKernel({ log: quiet });
  try {
    const plugin = definePlugin({
      id: 'everything', version: '1', provides: [counterToken],
      async setup(ctx) {
        ctxRef = ctx;
        ctx.track(() => { log.push(`first (routes=${t.kernel.owned('everything').routes})`); });
        ctx.route({ method: 'GET', path: ['/api/everything', '/api/everything-alias'], access: 'public', handler: () => ({ ok: true }) });
        ctx.route({ method: 'POST', path: '/api/everything/:id', access: 'public', handler: () => ({ ok: true }) });
        ctx.track({ dispose: async () => { await sleep(1); log.push(`second (routes=${t.kernel.owned('everything').routes}, listeners=${t.kernel.owned('everything').listeners})`); } });
        ctx.on(pinged, () => { heard++; });
        ctx.setInterval(() => { ticks++; }, 5);
        ctx.setTimeout(() => {}, 60_000);
        ctx.ws.on('everything.hello', () => {});
        ctx.ws.onConnect(() => {});
        ctx.provide(counterToken, { count: () => ticks });
        const db = await ctx.storage.sql({ migrations: ['CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT)'] });
        await db.run('INSERT INTO things (name) VALUES (?)', ['kept']);
        ctx.track(() => { log.push(`third (services=${t.kernel.owned('everything').services}, aborted=${ctx.signal.aborted})`); });
      },
    });
    const info = await t.kernel.load(plugin);
    assert.is(info.state, 'active', info.error);

    const before = t.kernel.owned('everything');
    assert.equal(before, { routes: 3, listeners: 1, timers: 2, wsHandlers: 2, services: 1, disposables: 12 });
    assert.is((await t.inject({ url: '/api/everything' })).status, 200);
    assert.is((await t.inject({ url: '/api/everything-alias' })).status, 200);
    assert.is((await t.inject({ method: 'POST', url: '/api/everything/1' })).status, 200);
    assert.ok(t.kernel.resolve(counterToken));
    ctxRef!.emit(pinged, { n: 1 });
    assert.is(heard, 1);

    const unloaded = await t.kernel.unload('everything');
    assert.equal(unloaded, ['everything']);
    assert.equal(t.kernel.owned('everything'), zero);
    assert.is(t.kernel.plugins().find((p) => p.id === 'everything')?.state, 'inactive');

    // LIFO: the last tracked item ran first (the service was still there, the signal already aborted);
    // the first tracked item ran last, after every route had been removed.
    assert.equal(log, ['third (services=1, aborted=true)', 'second (routes=3, listeners=0)', 'first (routes=0)']);

    for (const url of ['/api/everything', '/api/everything-alias']) {
      const res = await t.inject({ url });
      assert.is(res.status, 404, url);
      assert.is(res.body.code, 'NOT_FOUND');
    }
    assert.is((await t.inject({ method: 'POST', url: '/api/everything/1' })).status, 404);
    assert.is(t.kernel.resolve(counterToken), undefined);
    assert.not.ok(t.kernel.plugins().find((p) => p.id === 'everything')?.provides.some((id) => t.kernel.resolve({ id }) !== undefined));

    ctxRef!.emit(pinged, { n: 2 });
    assert.is(heard, 1, 'the listener is gone');
    const ticksAtUnload = ticks;
    await sleep(30);
    assert.is(ticks, ticksAtUnload, 'the interval was cleared');
    assert.ok(ctxRef!.signal.aborted);

    // The database was closed: close() snapshots and empties the journal.
    const file = join(t.stateDir, 'data', 'everything.sqlite');
    assert.ok(existsSync(file), 'snapshot written on close');
    assert.is(statSync(`${file}.journal`).size, 0);

    // A late registration through the old context is refused and leaves nothing behind.
    assert.throws(() => ctxRef!.route({ method: 'GET', path: '/api/late', access: 'public', handler: () => 1 }), /unloading/);
    assert.throws(() => ctxRef!.setInterval(() => { ticks++; }, 5), /unloading/);
    assert.throws(() => ctxRef!.provide(counterToken, { count: () => 0 }), /unloading/);
    assert.equal(t.kernel.owned('everything'), zero);
    assert.is((await t.inject({ url: '/api/late' })).status, 404);
  } finally {
    await t.close();
  }
});

test('a failing disposable does not stop the rest and is logged', async () => {
  const ran: string[] = [];
  const t = await createTestKernel({ log: quiet });
  try {
    await t.kernel.load(definePlugin({
      id: 'flaky', version: '1',
      setup(ctx) {
        ctx.track(() => { ran.push('a'); });
        ctx.route({ method: 'GET', path: '/api/flaky', access: 'public', handler: () => 1 });
        ctx.track(() => { throw new Error('dispose exploded'); });
        ctx.track(async () => { ran.push('c'); });
      },
    }));
    await t.kernel.unload('flaky');
    assert.equal(ran, ['c', 'a']);
    assert.equal(t.kernel.owned('flaky'), zero);
    assert.ok(t.kernel.logs.entries().some((e) => e.level === 'error' && e.message.includes('dispose exploded')));
  } finally {
    await t.close();
  }
});

test('a fired ctx.setTimeout leaves the stack and the timer count', async () => {
  const t = await createTestKernel({ log: quiet });
  try {
    let fired = 0;
    await t.kernel.load(definePlugin({
      id: 'rescheduler', version: '1',
      setup(ctx) {
        const tick = () => { fired++; if (fired < 20) ctx.setTimeout(tick, 1); };
        ctx.setTimeout(tick, 1);
      },
    }));
    for (let i = 0; i < 200 && fired < 20; i++) await sleep(5);
    assert.is(fired, 20);
    assert.equal(t.kernel.owned('rescheduler'), zero);
  } finally {
    await t.close();
  }
});

test('a cancelled ctx.setTimeout or ctx.setInterval never fires and leaves the stack and the timer count', async () => {
  const t = await createTestKernel({ log: quiet });
  try {
    let fired = 0;
    await t.kernel.load(definePlugin({
      id: 'canceller', version: '1',
      setup(ctx) {
        for (let i = 0; i < 10; i++) ctx.setTimeout(() => { fired++; }, 20)();
        ctx.setInterval(() => { fired++; }, 5)();
      },
    }));
    assert.equal(t.kernel.owned('canceller'), zero);
    await sleep(60);
    assert.is(fired, 0);
  } finally {
    await t.close();
  }
});

test('stop() unloads every plugin, dependents before providers', async () => {
  const order: string[] = [];
  const t = await createTestKernel({
    log: quiet,
    plugins: [
      definePlugin({ id: 'user', version: '1', requires: [counterToken], setup(ctx) { ctx.track(() => { order.push('user'); }); } }),
      definePlugin({
        id: 'provider', version: '1', provides: [counterToken],
        setup(ctx) { ctx.provide(counterToken, { count: () => 0 }); ctx.track(() => { order.push('provider'); }); },
      }),
    ],
  });
  await t.close();
  assert.equal(order, ['user', 'provider']);
  assert.equal(t.kernel.owned('provider'), zero);
  assert.equal(t.kernel.owned('user'), zero);
});

test.run();
