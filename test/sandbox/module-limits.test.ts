// Guest plugins that loop or exhaust memory, in setup or in a handler: the isolate is killed with the
// reason, every later call fails with it, other modules keep serving, and the host's event loop stalls at
// most for the synchronous budget (a host timer keeps ticking while a guest spins on its own thread).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sandbox from '../../sandbox/index.ts';
import { coreSandbox, type SandboxModule, type SandboxService } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import { failure, guest, loadGuest, request } from './fixtures/guest.ts';

let kernel: TestKernel;
let box: SandboxService;
let healthy: SandboxModule;
const LIMITS = { timeoutMs: 300, setupTimeoutMs: 300, memoryMb: 32 };

test.before(async () => {
  kernel = await createTestKernel({ plugins: [sandbox] });
  box = kernel.kernel.resolve(coreSandbox)!;
  healthy = await loadGuest(box, guest("ctx.route({ method: 'GET', path: '/', handler: () => 'fine' });", { id: 'healthy' }));
});
test.after(async () => {
  healthy.dispose();
  await kernel.close();
});

const HOSTILE_SETUP = `
  ctx.route({ method: 'GET', path: '/spin', handler: () => { while (true) {} } });
  ctx.route({ method: 'GET', path: '/spin-after-await', handler: async () => { await null; while (true) {} } });
  ctx.route({ method: 'GET', path: '/hang', handler: () => new Promise(() => {}) });
  ctx.route({ method: 'GET', path: '/bomb', handler: () => { const keep = []; while (true) keep.push(new Array(1e6).fill(1.5)); } });
  ctx.route({ method: 'GET', path: '/ok', handler: () => 'ok' });
  ctx.route({ method: 'GET', path: '/background', handler: () => {
    // The capability's answer arrives after the call has ended; what runs then has no deadline of its own.
    ctx.fetch('http://127.0.0.1/').catch(() => { while (true) {} });
    return 'answered';
  } });
`;
/** Without result-bearing capabilities: calls start on the host's thread under the 200 ms synchronous budget. */
const HOSTILE = guest(HOSTILE_SETUP, { id: 'hostile' });
/** With fetch: every call runs on the isolate's thread, under ivm's timeout and the host deadline. */
const HOSTILE_ASYNC = guest(HOSTILE_SETUP, { id: 'hostile', capabilities: ['fetch'] });
const SYNC_BUDGET = /^Plugin "hostile" was stopped: a handler computed for more than 200 ms without waiting, which would stall the server$/;

/** Counts host timer ticks while `work` runs: a stalled event loop would show none. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  try {
    return { value: await work, ticks };
  } finally {
    clearInterval(timer);
  }
}

async function assertKilled(files: typeof HOSTILE, path: string, status: number, code: string, reason: string, message: RegExp): Promise<void> {
  const module = await loadGuest(box, files, LIMITS);
  const index = module.manifest.routes.findIndex((r) => r.path === path);
  const { value: error, ticks } = await ticksDuring(failure(module.call(`route:${index}`, request())));
  assert.equal([error.status, error.code], [status, code], error.message);
  assert.match(error.message, message);
  // A synchronous call holds the host for at most its budget (the message says which); on the isolate's thread, not at all.
  if (files === HOSTILE_ASYNC || !SYNC_BUDGET.test(error.message)) assert.ok(ticks > 0, 'the host kept running while the guest did');
  const exit = await module.exited;
  assert.is(exit.reason, reason);
  assert.is(exit.message, error.message);
  const after = await failure(module.call(`route:${module.manifest.routes.findIndex((r) => r.path === '/ok')}`, request()));
  assert.equal([after.status, after.code, after.message], [status, code, error.message], 'a dead module answers every call with its exit');
  assert.equal(await healthy.call('route:0', request()), { status: 200, body: 'fine' }, 'other modules are untouched');
}

test('a synchronous infinite loop in a handler: killed at the synchronous budget (503 PLUGIN_TIMEOUT)', () =>
  assertKilled(HOSTILE, '/spin', 503, 'PLUGIN_TIMEOUT', 'deadline', SYNC_BUDGET));

test('a loop after an await in the same call: still inside the synchronous budget', () =>
  assertKilled(HOSTILE, '/spin-after-await', 503, 'PLUGIN_TIMEOUT', 'deadline', SYNC_BUDGET));

test('a promise that never settles: killed by the host deadline', () =>
  assertKilled(HOSTILE, '/hang', 503, 'PLUGIN_TIMEOUT', 'deadline', /ran past its 300 ms deadline/));

test('an undeclared capability is refused inside the isolate, so nothing of the call runs later', () =>
  assertKilled(HOSTILE, '/background', 503, 'PLUGIN_TIMEOUT', 'deadline', SYNC_BUDGET));

test('with no synchronous budget every call runs on the isolate\'s thread: a loop is killed at the call deadline', async () => {
  const module = await loadGuest(box, HOSTILE, { ...LIMITS, syncBudgetMs: 0 });
  const { value: error, ticks } = await ticksDuring(failure(module.call(`route:${module.manifest.routes.findIndex((r) => r.path === '/spin')}`, request())));
  assert.is(error.message, 'Plugin "hostile" was stopped: a call ran past its 300 ms deadline');
  assert.ok(ticks > 0, 'the host kept running while the guest did');
});

test('on the isolate\'s thread (fetch declared): a loop is killed at the call deadline', () =>
  assertKilled(HOSTILE_ASYNC, '/spin', 503, 'PLUGIN_TIMEOUT', 'deadline', /^Plugin "hostile" was stopped: a call ran past its 300 ms deadline$/));

test('on the isolate\'s thread: a loop after an await (past ivm\'s own timeout) is killed by the host deadline', () =>
  assertKilled(HOSTILE_ASYNC, '/spin-after-await', 503, 'PLUGIN_TIMEOUT', 'deadline', /deadline/));

test('a memory bomb in a handler: killed at the memory limit (500 PLUGIN_MEMORY_LIMIT)', () =>
  assertKilled(HOSTILE_ASYNC, '/bomb', 500, 'PLUGIN_MEMORY_LIMIT', 'memory', /exceeded its 32 MB memory limit/));

test('a memory bomb in a synchronous call: killed, by the memory limit or the budget, whichever comes first', async () => {
  const module = await loadGuest(box, HOSTILE, LIMITS);
  const error = await failure(module.call(`route:${module.manifest.routes.findIndex((r) => r.path === '/bomb')}`, request()));
  assert.ok(['PLUGIN_MEMORY_LIMIT', 'PLUGIN_TIMEOUT'].includes(error.code), error.code);
  assert.ok(['memory', 'deadline'].includes((await module.exited).reason));
  assert.equal(await healthy.call('route:0', request()), { status: 200, body: 'fine' });
});

test('concurrent calls into a module that dies all fail with its exit', async () => {
  const module = await loadGuest(box, HOSTILE, LIMITS);
  const calls = [module.call('route:4', request()), module.call('route:0', request()), module.call('route:4', request())];
  const settled = await Promise.allSettled(calls);
  const codes = settled.map((s) => (s.status === 'rejected' ? (s.reason as { code: string }).code : 'ok'));
  assert.is(codes[1], 'PLUGIN_TIMEOUT');
  assert.ok(codes.includes('PLUGIN_TIMEOUT'));
  assert.is((await module.exited).reason, 'deadline');
});

test('loops and bombs while loading: at the top level (no name yet) and in setup (named)', async () => {
  const top = await failure(box.loadModule({ code: 'while (true) {}', ...LIMITS }));
  assert.equal([top.status, top.code, top.guest], [503, 'PLUGIN_TIMEOUT', undefined]);
  assert.match(top.message, /loading took longer than 300 ms/);
  const setup = await failure(loadGuest(box, guest('await null; while (true) {}', { id: 'slow-setup' }), LIMITS));
  assert.equal([setup.status, setup.code, setup.guest], [503, 'PLUGIN_TIMEOUT', { id: 'slow-setup', version: '1.0.0' }]);
  assert.is(setup.message, 'Plugin "slow-setup" was stopped: loading took longer than 300 ms');
  const bomb = await failure(loadGuest(box, guest('const keep = []; while (true) keep.push(new Array(1e6).fill(1.5));', { id: 'greedy' }), LIMITS));
  assert.equal([bomb.status, bomb.code, bomb.guest], [500, 'PLUGIN_MEMORY_LIMIT', { id: 'greedy', version: '1.0.0' }]);
  assert.equal(await healthy.call('route:0', request()), { status: 200, body: 'fine' });
});

test('work that keeps running after its call answered is stopped by the idle watchdog', async () => {
  const module = await loadGuest(box, HOSTILE_ASYNC, LIMITS);
  const index = module.manifest.routes.findIndex((r) => r.path === '/background');
  // The SSRF guard refuses the fetch; the refusal arrives after the call ended, and the catch spins.
  assert.equal(await module.call(`route:${index}`, request()), { status: 200, body: 'answered' });
  const exit = await module.exited;
  assert.equal(exit, { reason: 'runaway', message: 'Plugin "hostile" was stopped: it kept running outside any request' });
  assert.is((await failure(module.call('route:4', request()))).code, 'PLUGIN_CRASHED');
});

test('dispose ends the isolate at once; calls then answer 503 PLUGIN_UNAVAILABLE', async () => {
  const module = await loadGuest(box, HOSTILE, LIMITS);
  const pending = failure(module.call('route:2', request()));
  module.dispose();
  assert.equal(await module.exited, { reason: 'disposed', message: 'Plugin "hostile" was stopped: it was unloaded' });
  assert.is((await pending).code, 'PLUGIN_UNAVAILABLE');
  assert.is((await failure(module.call('route:4', request()))).status, 503);
});

test('unloading the sandbox disposes every module isolate', async () => {
  const own = await createTestKernel({ plugins: [sandbox] });
  const module = await loadGuest(own.kernel.resolve(coreSandbox)!, HOSTILE, LIMITS);
  await own.close();
  assert.is((await module.exited).reason, 'disposed');
});

test.run();
