// Hostile code against the isolate boundary. Under node:vm (same heap as the host) every one of these
// reaches the host; here each must come back empty-handed. A canary on the host's global object shows
// whether the code ever ran in the host realm.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sandbox from '../../sandbox/index.ts';
import { coreSandbox, type SandboxService } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

const CANARY = `host-canary-${process.pid}`;
let kernel: TestKernel;
let box: SandboxService;

test.before(async () => {
  (globalThis as Record<string, unknown>).__hostCanary = CANARY;
  kernel = await createTestKernel({ plugins: [sandbox] });
  box = kernel.kernel.resolve(coreSandbox)!;
});
test.after(() => kernel.close());

/** Runs hostile code with an injected value and a capability, as the code handler does. */
async function attempt(code: string) {
  const result = await box.runCode({
    code, input: { params: { city: 'Oslo' } },
    caps: { fetch: async () => ({ status: 200, headers: {}, text: 'ok' }) },
  });
  assert.not.match(result.output, CANARY, 'the host realm was reached');
  assert.not.match(result.output + (result.error ?? ''), /\/work\/|node_modules|node:internal/, 'host paths leaked');
  return result;
}

test('this.constructor.constructor("return process")() finds no process', async () => {
  const result = await attempt('return this.constructor.constructor("return typeof process")()');
  assert.is(result.output, 'undefined');
  const direct = await attempt('return this.constructor.constructor("return process")().env');
  assert.is(direct.error, 'ReferenceError: process is not defined');
  assert.is((await attempt('return this.constructor.constructor("return globalThis.__hostCanary")()')).output, '');
});

test('prototype chains of injected values lead to the guest realm only', async () => {
  const viaParams = await attempt('return params.constructor.constructor("return [typeof process, typeof require, globalThis.__hostCanary]")()');
  assert.is(viaParams.output, '["undefined","undefined",null]');
  const viaProto = await attempt('return Object.getPrototypeOf(params).constructor.constructor("return typeof process")()');
  assert.is(viaProto.output, 'undefined');
  const viaCapability = await attempt('return fetch.constructor.constructor("return [typeof process, globalThis.__hostCanary]")()');
  assert.is(viaCapability.output, '["undefined",null]');
  const viaResult = await attempt('const r = await fetch("x"); return r.constructor.constructor("return typeof process")()');
  assert.is(viaResult.output, 'undefined');
});

test('the capability is a plain guest function: no ivm Reference to climb', async () => {
  const result = await attempt('return [typeof fetch.get, typeof fetch.deref, typeof fetch.derefInto, typeof fetch.applySync]');
  assert.is(result.output, '["undefined","undefined","undefined","undefined"]');
  const climb = await attempt('try { return typeof fetch.get("constructor") } catch (e) { return "refused: " + e.message }');
  assert.match(climb.output, /^refused: /);
});

test('Error stack tricks: frames expose no host function, receiver or file', async () => {
  const frames = await attempt(`
    Error.prepareStackTrace = (_error, frames) => frames.map((f) => [typeof f.getThis(), typeof f.getFunction(), f.getFileName()]);
    const own = new Error('x').stack;
    let viaHost;
    try { await fetch({ not: 'a string' }, () => 1); } catch (e) { viaHost = e.stack; }
    return { own, viaHost };`);
  const parsed = JSON.parse(frames.output) as { own: unknown[][]; viaHost: unknown };
  for (const [, fn] of parsed.own.slice(1)) assert.is(fn, 'undefined', 'strict frames hide their functions');
  const escape = await attempt(`
    Error.prepareStackTrace = (_e, frames) => frames;
    const frames = new Error('x').stack;
    for (const frame of frames) {
      const fn = frame.getFunction();
      if (fn) { try { const p = await fn.constructor("return typeof process")(); if (p !== 'undefined') return 'escaped'; } catch {} }
    }
    return 'contained';`);
  assert.is(escape.output, 'contained');
  const callee = await attempt('try { return typeof arguments.callee.caller } catch (e) { return e.constructor.name }');
  assert.is(callee.output, 'TypeError', 'the runner that called the code is strict: no caller');
});

test('process.env, require and import() do not exist', async () => {
  assert.is((await attempt('return process.env.SVC_API_TOKEN')).error, 'ReferenceError: process is not defined');
  assert.is((await attempt('return require("child_process")')).error, 'ReferenceError: require is not defined');
  const dynamic = await attempt('return await import("node:fs")');
  assert.is(dynamic.ok, false);
  assert.match(dynamic.error!, /Not supported/);
  const globals = await attempt('return Object.getOwnPropertyNames(globalThis).filter((n) => /^(process|require|module|Buffer|setTimeout|fetch|__hostCanary)$/.test(n))');
  assert.is(globals.output, '[]');
});

test('the code cannot break out of its function body to reach the runner', async () => {
  const result = await attempt('}); return 1; (async function() {');
  assert.is(result.ok, false);
  assert.match(result.error!, /SyntaxError/);
});

test.run();
