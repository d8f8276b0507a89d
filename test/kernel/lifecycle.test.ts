import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createKernel } from '../../kernel/index.ts';
import { createToken, definePlugin, HttpError, type PluginDef } from '../../sdk/index.ts';
import { createTestKernel, inject } from '../../sdk/testing.ts';

const quiet = { level: 'error' as const, write: () => {} };

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

const tokenA = createToken<{ name: string }>('life.alpha');
const tokenB = createToken<{ name: string }>('life.beta');

test('load order follows requires/provides, not registration order', async () => {
  const order: string[] = [];
  const a = definePlugin({ id: 'a', version: '1', provides: [tokenA], setup(ctx) { order.push('a'); ctx.provide(tokenA, { name: 'a' }); } });
  const b = definePlugin({
    id: 'b', version: '1', requires: [tokenA], provides: [tokenB],
    setup(ctx) { order.push('b'); ctx.provide(tokenB, { name: `b after ${ctx.use(tokenA).name}` }); },
  });
  const c = definePlugin({ id: 'c', version: '1', requires: [tokenB], setup(ctx) { order.push(`c sees ${ctx.use(tokenB).name}`); } });
  const t = await createTestKernel({ plugins: [c, b, a], log: quiet });
  try {
    assert.equal(order, ['a', 'b', 'c sees b after a']);
    assert.equal(t.kernel.plugins().map((p) => [p.id, p.state]), [['c', 'active'], ['b', 'active'], ['a', 'active']]);
  } finally {
    await t.close();
  }
});

test('a missing required dependency fails the plugin with an error naming the token (non-strict)', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-kernel-life-'));
  const missing = createToken<unknown>('nowhere.provided');
  const ran: string[] = [];
  const kernel = createKernel({
    stateDir, env: {}, strict: false, log: quiet,
    plugins: [
      definePlugin({ id: 'needy', version: '1', requires: [missing], setup() { ran.push('needy'); } }),
      definePlugin({ id: 'fine', version: '1', setup() { ran.push('fine'); } }),
    ],
  });
  try {
    const { failed } = await kernel.start();
    assert.equal(failed.map((f) => f.id), ['needy']);
    assert.match(failed[0]!.error, 'nowhere.provided');
    const needy = kernel.plugins().find((p) => p.id === 'needy')!;
    assert.is(needy.state, 'failed');
    assert.match(needy.error ?? '', 'nowhere.provided');
    assert.equal(ran, ['fine'], 'setup of the plugin with a missing dependency never runs');
    assert.is(kernel.phase(), 'running');
    assert.ok(kernel.logs.entries().some((e) => e.level === 'error' && e.message.includes('needy') && e.message.includes('nowhere.provided')));
  } finally {
    await kernel.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('a missing required dependency makes start() throw in strict mode', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-kernel-life-'));
  const missing = createToken<unknown>('nowhere.strict');
  try {
    let caught: unknown;
    try {
      await createTestKernel({ stateDir, log: quiet, plugins: [definePlugin({ id: 'needy', version: '1', requires: [missing], setup() {} })] });
    } catch (error) {
      caught = error;
    }
    assert.instance(caught, AggregateError);
    assert.match((caught as AggregateError).message, 'needy');
    assert.match((caught as AggregateError).errors.map((e: Error) => e.message).join('\n'), 'nowhere.strict');
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('unloading a provider without cascade is a 409; with cascade dependents unload first', async () => {
  const disposed: string[] = [];
  const a = definePlugin({
    id: 'a', version: '1', provides: [tokenA],
    setup(ctx) { ctx.provide(tokenA, { name: 'a' }); ctx.track(() => { disposed.push('a'); }); },
  });
  const b = definePlugin({
    id: 'b', version: '1', requires: [tokenA], provides: [tokenB],
    setup(ctx) { ctx.provide(tokenB, { name: 'b' }); ctx.track(() => { disposed.push('b'); }); },
  });
  const c = definePlugin({ id: 'c', version: '1', requires: [tokenB], setup(ctx) { ctx.track(() => { disposed.push('c'); }); } });
  const other = definePlugin({ id: 'other', version: '1', setup(ctx) { ctx.track(() => { disposed.push('other'); }); } });
  const t = await createTestKernel({ plugins: [a, b, c, other], log: quiet });
  try {
    let caught: unknown;
    await t.kernel.unload('a').catch((error) => { caught = error; });
    assert.ok(HttpError.is(caught), 'rejects with an HttpError');
    assert.is((caught as HttpError).status, 409);
    assert.match((caught as HttpError).message, '"b"');
    assert.equal(disposed, [], 'nothing was unloaded by the refused request');
    assert.ok(t.kernel.plugins().every((p) => p.state === 'active'));

    const unloaded = await t.kernel.unload('a', { cascade: true });
    assert.equal(unloaded, ['c', 'b', 'a']);
    assert.equal(disposed, ['c', 'b', 'a']);
    const states = Object.fromEntries(t.kernel.plugins().map((p) => [p.id, p.state]));
    assert.equal(states, { a: 'inactive', b: 'inactive', c: 'inactive', other: 'active' });
    assert.is(t.kernel.resolve(tokenA), undefined);
    assert.is(t.kernel.resolve(tokenB), undefined);
  } finally {
    await t.close();
  }
});

test('a setup that throws is rolled back: nothing stays owned and its route 404s', async () => {
  const t = await createTestKernel({ log: quiet });
  try {
    const bad = definePlugin({
      id: 'bad', version: '1',
      setup(ctx) {
        ctx.route({ method: 'GET', path: '/api/bad', access: 'public', handler: () => ({ ok: true }) });
        ctx.on(createEventLike(), () => {});
        ctx.setInterval(() => {}, 60_000);
        ctx.setTimeout(() => {}, 60_000);
        ctx.ws.on('bad.message', () => {});
        ctx.ws.onConnect(() => {});
        throw new Error('boom in setup');
      },
    });
    const info = await t.kernel.load(bad);
    assert.is(info.state, 'failed');
    assert.match(info.error ?? '', 'boom in setup');
    assert.equal(t.kernel.owned('bad'), { routes: 0, listeners: 0, timers: 0, wsHandlers: 0, services: 0, disposables: 0 });
    const res = await t.inject({ url: '/api/bad' });
    assert.is(res.status, 404);
    assert.is(res.body.code, 'NOT_FOUND');
  } finally {
    await t.close();
  }
});

test('a setup that exceeds its timeout fails and is rolled back', async () => {
  const t = await createTestKernel({ log: quiet });
  const gate = deferred();
  let lateError: unknown;
  let lateStorageError: unknown;
  const lateDone = deferred();
  try {
    const slow = definePlugin({
      id: 'slow', version: '1', setupTimeoutMs: 30,
      async setup(ctx) {
        ctx.route({ method: 'GET', path: '/api/slow', access: 'public', handler: () => 'early' });
        await gate.promise;
        try {
          ctx.route({ method: 'GET', path: '/api/slow-late', access: 'public', handler: () => 'late' });
          ctx.setInterval(() => {}, 60_000);
          ctx.on(createEventLike(), () => {});
          ctx.ws.on('slow.late', () => {});
        } catch (error) {
          lateError = error;
        }
        try {
          await ctx.storage.sql({ migrations: ['CREATE TABLE late (id INTEGER)'] });
        } catch (error) {
          lateStorageError = error;
        } finally {
          lateDone.resolve();
        }
      },
    });
    const info = await t.kernel.load(slow);
    assert.is(info.state, 'failed');
    assert.match(info.error ?? '', /timed out/i);
    assert.equal(t.kernel.owned('slow'), { routes: 0, listeners: 0, timers: 0, wsHandlers: 0, services: 0, disposables: 0 });
    // The abandoned setup keeps running; whatever it registers afterwards must be refused, not leaked.
    gate.resolve();
    await lateDone.promise;
    assert.instance(lateError, Error);
    assert.instance(lateStorageError, Error);
    assert.not.ok(existsSync(join(t.stateDir, 'data', 'slow.sqlite.journal')), 'no database was opened for the failed plugin');
    assert.equal(t.kernel.owned('slow'), { routes: 0, listeners: 0, timers: 0, wsHandlers: 0, services: 0, disposables: 0 });
    assert.is((await t.inject({ url: '/api/slow' })).status, 404);
    assert.is((await t.inject({ url: '/api/slow-late' })).status, 404);
  } finally {
    gate.resolve();
    await t.close();
  }
});

test('a duplicate route from a second plugin fails that plugin and keeps the first', async () => {
  const first = definePlugin({
    id: 'first', version: '1',
    setup(ctx) { ctx.route({ method: 'GET', path: '/api/dup/:id', access: 'public', handler: (req) => ({ by: 'first', id: req.params.id }) }); },
  });
  const t = await createTestKernel({ plugins: [first], log: quiet });
  try {
    const second = definePlugin({
      id: 'second', version: '1',
      setup(ctx) {
        ctx.route({ method: 'GET', path: '/api/second-own', access: 'public', handler: () => 'mine' });
        ctx.route({ method: 'GET', path: '/api/dup/:other', access: 'public', handler: () => ({ by: 'second' }) });
      },
    });
    const info = await t.kernel.load(second);
    assert.is(info.state, 'failed');
    assert.match(info.error ?? '', 'Duplicate route');
    assert.match(info.error ?? '', '"first"');
    assert.is(t.kernel.owned('second').routes, 0);
    const res = await t.inject({ url: '/api/dup/7' });
    assert.is(res.status, 200);
    assert.equal(res.body, { by: 'first', id: '7' });
    assert.is((await t.inject({ url: '/api/second-own' })).status, 404);
  } finally {
    await t.close();
  }
});

test('reload serves the new code', async () => {
  const version = (value: string): PluginDef => definePlugin({
    id: 'hot', version: value,
    setup(ctx) { ctx.route({ method: 'GET', path: '/api/hot', access: 'public', handler: () => ({ value }) }); },
  });
  const t = await createTestKernel({ plugins: [version('v1')], log: quiet });
  try {
    assert.equal((await t.inject({ url: '/api/hot' })).body, { value: 'v1' });
    const info = await t.kernel.reload('hot', version('v2'));
    assert.is(info.state, 'active');
    assert.is(info.version, 'v2');
    assert.equal((await t.inject({ url: '/api/hot' })).body, { value: 'v2' });
    assert.is(t.kernel.owned('hot').routes, 1);
  } finally {
    await t.close();
  }
});

test('during reload the plugin paths answer 503 with Retry-After', async () => {
  const old = definePlugin({
    id: 'hot', version: '1',
    setup(ctx) { ctx.route({ method: 'GET', path: '/api/hot', access: 'public', handler: () => ({ value: 'old' }) }); },
  });
  const other = definePlugin({
    id: 'other', version: '1',
    setup(ctx) { ctx.route({ method: 'GET', path: '/api/other', access: 'public', handler: () => ({ value: 'other' }) }); },
  });
  const t = await createTestKernel({ plugins: [old, other], log: quiet });
  const started = deferred();
  const routed = deferred();
  const gate1 = deferred();
  const gate2 = deferred();
  try {
    const next = definePlugin({
      id: 'hot', version: '2',
      async setup(ctx) {
        started.resolve();
        await gate1.promise;
        ctx.route({ method: 'GET', path: '/api/hot', access: 'public', handler: () => ({ value: 'new' }) });
        routed.resolve();
        await gate2.promise;
      },
    });
    const reloading = t.kernel.reload('hot', next);
    await started.promise;
    const held = await t.inject({ url: '/api/hot' });
    assert.is(held.status, 503);
    assert.is(held.headers.get('retry-after'), '1');
    assert.is(held.body.code, 'SERVICE_UNAVAILABLE');
    assert.is((await t.inject({ url: '/api/other' })).status, 200, 'other plugins keep serving');

    gate1.resolve();
    await routed.promise;
    const loading = await t.inject({ url: '/api/hot' });
    assert.is(loading.status, 503, 'the new route is not served before setup completes');
    assert.is(loading.headers.get('retry-after'), '1');

    gate2.resolve();
    const info = await reloading;
    assert.is(info.state, 'active');
    const after = await t.inject({ url: '/api/hot' });
    assert.is(after.status, 200);
    assert.equal(after.body, { value: 'new' });
  } finally {
    gate1.resolve();
    gate2.resolve();
    await t.close();
  }
});

test('while a provider reloads, its dependents\' paths answer 503, not 404', async () => {
  const token = createToken<{ value: string }>('lifecycle.held');
  const provider = (value: string, gate?: Promise<void>) => definePlugin({
    id: 'held-provider', version: value, provides: [token],
    async setup(ctx) { await gate; ctx.provide(token, { value }); },
  });
  const dependent = definePlugin({
    id: 'held-dependent', version: '1', requires: [token],
    setup(ctx) { const service = ctx.use(token); ctx.route({ method: 'GET', path: '/api/held', access: 'public', handler: () => service }); },
  });
  const t = await createTestKernel({ plugins: [provider('old'), dependent], log: quiet });
  const gate = deferred();
  try {
    const reloading = t.kernel.reload('held-provider', provider('new', gate.promise));
    const during = await t.inject({ url: '/api/held' });
    assert.is(during.status, 503);
    assert.is(during.headers.get('retry-after'), '1');
    gate.resolve();
    await reloading;
    assert.equal((await t.inject({ url: '/api/held' })).body, { value: 'new' });
  } finally {
    gate.resolve();
    await t.close();
  }
});

test('inject helper works against an explicit base URL too', async () => {
  const t = await createTestKernel({
    log: quiet,
    plugins: [definePlugin({ id: 'ping', version: '1', setup(ctx) { ctx.route({ method: 'GET', path: '/api/ping', access: 'public', handler: () => 'pong' }); } })],
  });
  try {
    const res = await inject(await t.url(), { url: '/api/ping' });
    assert.is(res.status, 200);
    assert.is(res.body, 'pong');
  } finally {
    await t.close();
  }
});

test('reloading a provider reloads its dependents after it', async () => {
  const setups: string[] = [];
  let generation = 0;
  const a = definePlugin({
    id: 'a', version: '1', provides: [tokenA],
    setup(ctx) { generation++; setups.push('a'); ctx.provide(tokenA, { name: `a${generation}` }); },
  });
  const b = definePlugin({
    id: 'b', version: '1', requires: [tokenA],
    setup(ctx) {
      const name = ctx.use(tokenA).name;
      setups.push(`b(${name})`);
      ctx.route({ method: 'GET', path: '/api/b', access: 'public', handler: () => ({ sees: name }) });
    },
  });
  const t = await createTestKernel({ plugins: [b, a], log: quiet });
  try {
    assert.equal((await t.inject({ url: '/api/b' })).body, { sees: 'a1' });
    const info = await t.kernel.reload('a');
    assert.is(info.state, 'active');
    assert.equal(setups, ['a', 'b(a1)', 'a', 'b(a2)']);
    assert.ok(t.kernel.plugins().every((p) => p.state === 'active'));
    assert.equal((await t.inject({ url: '/api/b' })).body, { sees: 'a2' });
    assert.is(t.kernel.owned('b').routes, 1);
  } finally {
    await t.close();
  }
});

test('a provider loaded later sets up again the active plugins that use its token optionally', async () => {
  const k = await createTestKernel({ plugins: [] });
  try {
    const seen: (string | undefined)[] = [];
    await k.kernel.load(definePlugin({
      id: 'user', version: '1.0.0', optional: [tokenA],
      setup(ctx) {
        const found = ctx.tryUse(tokenA)?.name;
        seen.push(found);
        ctx.route({ method: 'GET', path: '/api/user', handler: () => ({ found: found ?? null }) });
      },
    }));
    assert.equal((await k.inject({ url: '/api/user' })).body, { found: null });
    await k.kernel.load(definePlugin({ id: 'alpha', version: '1.0.0', provides: [tokenA], setup(ctx) { ctx.provide(tokenA, { name: 'alpha' }); } }));
    assert.equal(seen, [undefined, 'alpha']);
    assert.equal((await k.inject({ url: '/api/user' })).body, { found: 'alpha' });
    assert.is(k.kernel.plugins().find((p) => p.id === 'user')!.state, 'active');
  } finally {
    await k.close();
  }
});

test('unloading an unknown plugin is a 404; loading an active one is a 409', async () => {
  const t = await createTestKernel({ log: quiet, plugins: [definePlugin({ id: 'here', version: '1', setup() {} })] });
  try {
    const unknown = await t.kernel.unload('nobody').then(() => undefined, (error: unknown) => error);
    assert.ok(HttpError.is(unknown));
    assert.is((unknown as HttpError).status, 404);
    const again = await t.kernel.load(definePlugin({ id: 'here', version: '2', setup() {} })).then(() => undefined, (error: unknown) => error);
    assert.ok(HttpError.is(again));
    assert.is((again as HttpError).status, 409);
    assert.is(t.kernel.plugins().find((p) => p.id === 'here')?.version, '1');
  } finally {
    await t.close();
  }
});

test('requests before start() completes get 503 with Retry-After', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-kernel-life-'));
  const gate = deferred();
  const kernel = createKernel({
    stateDir, env: {}, log: quiet,
    plugins: [definePlugin({
      id: 'slowstart', version: '1',
      async setup(ctx) {
        ctx.route({ method: 'GET', path: '/api/slowstart', access: 'public', handler: () => 'ready' });
        await gate.promise;
      },
    })],
  });
  try {
    const { url } = await kernel.listen({ port: 0 });
    const starting = kernel.start();
    const early = await inject(url, { url: '/api/slowstart' });
    assert.is(early.status, 503);
    assert.is(early.headers.get('retry-after'), '1');
    assert.is(early.body.code, 'SERVICE_UNAVAILABLE');
    gate.resolve();
    await starting;
    const ready = await inject(url, { url: '/api/slowstart' });
    assert.is(ready.status, 200);
    assert.is(ready.body, 'ready');
  } finally {
    gate.resolve();
    await kernel.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

function createEventLike() {
  return { name: 'life.test.happened' };
}

test.run();
