// Hostile guest plugins against the module boundary: realm escapes through the SDK and the values it
// hands over, stack-frame tricks, option injection through Object.prototype, tampered builtins, and
// schemas built to hurt the host that validates with them. A canary on the host's global object shows
// whether guest code ever ran in the host realm.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sandbox from '../../sandbox/index.ts';
import { coreSandbox, type SandboxModule, type SandboxService } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import { failure, guest, loadGuest, request } from './fixtures/guest.ts';

const CANARY = `host-canary-${process.pid}`;
let kernel: TestKernel;
let box: SandboxService;
const modules: SandboxModule[] = [];

test.before(async () => {
  (globalThis as Record<string, unknown>).__hostCanary = CANARY;
  kernel = await createTestKernel({ plugins: [sandbox] });
  box = kernel.kernel.resolve(coreSandbox)!;
});
test.after(async () => {
  for (const module of modules) module.dispose();
  await kernel.close();
});

const caps = {
  log: () => undefined,
  fetch: async ([url]: unknown[]) => {
    if (String(url).includes('fail')) throw new Error('refused by the host');
    return { status: 200, headers: {}, text: 'host answer' };
  },
};

/** Loads a guest whose one route runs `body` (with `ctx` and `request` in scope) and returns what it returns. */
async function attempt(body: string, setup = ''): Promise<unknown> {
  const module = await loadGuest(box, guest(`${setup}\nctx.route({ method: 'POST', path: '/', handler: async (request) => { ${body} } });`, { capabilities: ['fetch'] }), { caps, timeoutMs: 2000 });
  modules.push(module);
  const result = await module.call('route:0', request({ method: 'POST', body: { city: 'Oslo' } }));
  const text = JSON.stringify(result);
  assert.not.match(text, CANARY, 'the host realm was reached');
  assert.not.match(text, /\/work\/|node_modules|node:internal/, 'host paths leaked');
  return result.body;
}

test('constructor chains from every value the SDK hands over stay in the guest realm', async () => {
  const probe = '"return [typeof process, typeof require, typeof globalThis.__hostCanary]"';
  const escapes = await attempt(`
    const sdk = globalThis.__svcSdk;
    const answer = await ctx.fetch('https://example.com');
    const roots = [ctx, ctx.log, ctx.log.info, ctx.fetch, ctx.route, request, request.body, answer, sdk, sdk.definePlugin, sdk.reply, sdk.errors.notFound('x'), sdk.Type.String()];
    return roots.map((root) => root.constructor.constructor(${probe})());`);
  for (const found of escapes as string[][]) assert.equal(found, ['undefined', 'undefined', 'undefined']);
});

test('the guest global has no process, require, timers, host fetch, boot or ivm', async () => {
  const names = await attempt(`return Object.getOwnPropertyNames(globalThis).filter((n) => /^(process|require|setTimeout|setInterval|fetch|boot|ivm|_ivm|__hostCanary|Buffer)$/.test(n))`);
  assert.equal(names, []);
  const dynamic = await attempt(`const name = ['node', 'fs'].join(':'); try { await import(name); return 'imported'; } catch (e) { return e.message; }`);
  assert.match(dynamic as string, /not supported|Not supported|No module|not available/i);
});

test('the guest has no source of work that would run later on its own (so calls may run synchronously)', async () => {
  assert.equal(await attempt('return [typeof WebAssembly, typeof FinalizationRegistry, typeof Atomics.waitAsync]'), ['undefined', 'undefined', 'undefined']);
  const undeclared = await loadGuest(box, guest(`ctx.route({ method: 'GET', path: '/', handler: async () => { try { await ctx.fetch('https://example.com/'); return 'fetched'; } catch (e) { return e.message; } } });`), { caps });
  modules.push(undeclared);
  assert.match(String((await undeclared.call('route:0', request())).body), /did not declare the fetch capability/, 'refused inside the isolate');
});

test('stack frames expose no SDK function, receiver or host Reference, even when a capability fails', async () => {
  const frames = await attempt(`
    const seen = [];
    Error.prepareStackTrace = (_error, stack) => { for (const f of stack) seen.push(f); return 'captured'; };
    const failures = [];
    for (const args of [[1n], [{ toJSON() { throw new Error('inner'); } }], ['https://fail.example/']]) {
      try { await ctx.fetch(...args); } catch (e) { failures.push(String(e.stack)); }
    }
    try { ctx.log.info({ toString() { throw new Error('from toString'); } }); } catch (e) { failures.push(String(e.stack)); }
    new Error('own').stack;
    const leaks = seen.map((f) => [typeof f.getFunction(), f.getThis()]).filter(([fn, self]) => fn === 'function' || (self && (typeof self.apply === 'function' || typeof self.derefInto === 'function')));
    return { frames: seen.length, failures: failures.length, leaks: leaks.map(([fn, self]) => [fn, typeof self]) };`);
  const result = frames as { frames: number; failures: number; leaks: unknown[] };
  assert.ok(result.frames > 0, 'frames were captured');
  assert.is(result.failures, 4);
  assert.equal(result.leaks, [], 'no function or Reference-like receiver in any frame');
});

test('poisoned Object.prototype options cannot make results cross as References', async () => {
  const result = await attempt(`
    for (const key of ['reference', 'externalCopy', 'copy', 'promise', 'arguments', 'result', 'timeout']) {
      Object.defineProperty(Object.prototype, key, { get() { return key === 'copy' ? false : true; }, configurable: true });
    }
    const answer = await ctx.fetch('https://example.com');
    ctx.log.info('still here');
    for (const key of ['reference', 'externalCopy', 'copy', 'promise', 'arguments', 'result', 'timeout']) delete Object.prototype[key];
    return { type: typeof answer, text: answer.text, derefInto: typeof answer.derefInto, get: typeof answer.get };`);
  assert.equal(result, { type: 'object', text: 'host answer', derefInto: 'undefined', get: 'undefined' });
});

test('tampered builtins change only the guest\'s own results; the SDK and the host are unaffected', async () => {
  const result = await attempt(`
    JSON.stringify = () => ({ not: 'a string' });
    JSON.parse = () => ({ ok: true, value: 'forged' });
    Array.prototype.map = function () { return ['forged']; };
    const answer = await ctx.fetch('https://example.com');
    return answer.text;`);
  assert.is(result, 'host answer', 'capability answers are parsed with the builtins captured before guest code ran');
  const sdk = await attempt(`
    const before = globalThis.__svcSdk;
    try { globalThis.__svcSdk = { forged: true }; } catch {}
    try { Object.defineProperty(globalThis, '__svcSdk', { value: {} }); } catch (e) { return [globalThis.__svcSdk === before, e.constructor.name]; }
    return 'redefined';`);
  assert.equal(sdk, [true, 'TypeError'], 'the SDK global cannot be replaced');
});

test('a guest cannot flood the host: log lines per second, calls in flight and sizes are bounded before crossing', async () => {
  const lines: unknown[] = [];
  let fetches = 0;
  const module = await loadGuest(box, guest(`ctx.route({ method: 'GET', path: '/', handler: async () => {
    for (let i = 0; i < 100000; i++) ctx.log.info('line ' + i);
    let big;
    try { await ctx.fetch('x'.repeat(2 * 1024 * 1024)); } catch (e) { big = e.message; }
    const pending = Array.from({ length: 40 }, () => ctx.fetch('https://example.com').then(() => 'ok', (e) => e.message));
    const outcomes = await Promise.all(pending);
    return { ok: outcomes.filter((o) => o === 'ok').length, refused: [...new Set(outcomes.filter((o) => o !== 'ok'))], big };
  } });`, { capabilities: ['fetch'] }), { caps: { log: (args) => { lines.push(args); }, fetch: async () => { fetches++; return {}; } } });
  modules.push(module);
  const result = (await module.call('route:0', request())).body as { ok: number; refused: string[]; big: string };
  assert.equal(result, {
    ok: 16, refused: ['fetch: at most 16 calls can be in flight at once'],
    big: 'fetch: the arguments must be JSON of at most 1048576 characters',
  });
  assert.is(fetches, 16, 'refused calls never reached the host');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(lines.length >= 100 && lines.length <= 200, `${lines.length} log lines reached the host`);
});

test('invalid results are refused by the host: statuses, sizes, unserializable values', async () => {
  const module = await loadGuest(box, guest(`
    ctx.route({ method: 'GET', path: '/status', handler: () => reply(99, 'x') });
    ctx.route({ method: 'GET', path: '/huge', handler: () => 'x'.repeat(5 * 1024 * 1024) });
    ctx.route({ method: 'GET', path: '/cycle', handler: () => { const a = {}; a.a = a; return a; } });
    ctx.route({ method: 'GET', path: '/fake-error', handler: () => { throw { status: 200, code: 'lower', message: 'not an error' }; } });
    ctx.route({ method: 'GET', path: '/bad-code', handler: () => { throw errors.http(451, 'bad code!', 'Legal'); } });
  `), { caps, syncBudgetMs: 0 }); // building 5 MB may take longer than the synchronous budget on a busy machine
  modules.push(module);
  const codes = [];
  for (const handler of ['route:0', 'route:1', 'route:2', 'route:3', 'route:4']) {
    const error = await failure(module.call(handler, request()));
    codes.push([error.status, error.code]);
  }
  assert.equal(codes, [[500, 'EXECUTION_FAILED'], [500, 'EXECUTION_FAILED'], [500, 'EXECUTION_FAILED'], [500, 'EXECUTION_FAILED'], [451, 'EXECUTION_FAILED']]);
});

test('a catastrophic pattern is checked in the isolate: it can only stall the guest, never the host', async () => {
  const route = `ctx.route({ method: 'POST', path: '/', schema: { body: Type.Object({ s: Type.String({ pattern: '^(a+)+$' }) }) }, handler: () => 'matched' });`;
  const hurt = { method: 'POST', body: { s: `${'a'.repeat(40)}!` } } as const;
  // Without result-bearing capabilities the call starts on the host's thread, which it may hold for its 200 ms budget only.
  const synchronous = await loadGuest(box, guest(route), { caps, timeoutMs: 300 });
  modules.push(synchronous);
  assert.match((await failure(synchronous.call('route:0', request(hurt)))).message, /computed for more than 200 ms without waiting/);
  const module = await loadGuest(box, guest(route, { capabilities: ['fetch'] }), { caps, timeoutMs: 300 });
  modules.push(module);
  const body = module.manifest.routes[0]!.schema.body as { properties: { s: Record<string, unknown> } };
  assert.equal(body.properties.s, { type: 'string' }, 'the host copy has no pattern to backtrack on');
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const error = await failure(module.call('route:0', request(hurt)));
  clearInterval(timer);
  assert.equal([error.status, error.code], [503, 'PLUGIN_TIMEOUT']);
  assert.ok(ticks > 0, 'host timers kept firing while the guest backtracked');
});

test('schemas built to hurt the host are refused or reduced', async () => {
  const refused: [string, RegExp][] = [
    ["{ body: JSON.parse('{\"type\":\"object\",\"default\":{\"__proto__\":{\"polluted\":true}}}') }", /"__proto__" key/],
    [`{ body: (() => { let s = Type.String(); for (let i = 0; i < 40; i++) s = Type.Array(s); return s; })() }`, /nested deeper than 32/],
    [`{ body: Type.Union(Array.from({ length: 6000 }, (_, i) => Type.Literal(i))) }`, /schemas have too many nodes/],
    [`{ body: Type.Unsafe({ enum: Array.from({ length: 5000 }, (_, i) => i) }) }`, /at most 1000 values/],
    [`{ body: Type.Object({ s: Type.String({ description: 'x'.repeat(600 * 1024) }) }) }`, /larger than/],
  ];
  for (const [schema, message] of refused) {
    const error = await failure(loadGuest(box, guest(`ctx.route({ method: 'POST', path: '/', schema: ${schema}, handler: () => 1 });`), { caps }));
    assert.is(error.status, error.code === 'INVALID_PLUGIN' ? 422 : 500, error.message);
    assert.match(error.message, message);
  }
  assert.not.ok('polluted' in {}, 'no prototype was polluted');
  const reduced = await loadGuest(box, guest(`ctx.route({ method: 'POST', path: '/', schema: { body: Type.Unsafe({
    type: 'object', properties: { a: { $ref: '#/$defs/x' }, b: { type: 'array', uniqueItems: true }, c: { not: { pattern: 'x' } }, d: { oneOf: [{ type: 'string', pattern: 'a' }, { type: 'string' }] } },
    patternProperties: { '^x-(a+)+$': { type: 'string' } }, additionalProperties: false, '~guard': { check: 1 }, 'x-note': 'kept',
  }) }, handler: () => 1 });`), { caps });
  modules.push(reduced);
  assert.equal(reduced.manifest.routes[0]!.schema.body, {
    type: 'object', properties: { a: {}, b: { type: 'array' }, c: {}, d: { anyOf: [{ type: 'string' }, { type: 'string' }] } }, 'x-note': 'kept',
  });
});

test.run();
