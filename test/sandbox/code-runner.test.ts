// The code runner of `core.sandbox` on real isolates: results, capabilities, limits, and isolation
// between runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sandbox from '../../sandbox/index.ts';
import { coreSandbox, type SandboxService } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

let kernel: TestKernel;
let box: SandboxService;

test.before(async () => {
  kernel = await createTestKernel({ plugins: [sandbox], config: { sandbox: { maxConcurrentRuns: 3 } } });
  box = kernel.kernel.resolve(coreSandbox)!;
});
test.after(() => kernel.close());

test('returns the value of the code as text: strings as they are, anything else as JSON', async () => {
  assert.equal(await pick(box.runCode({ code: 'return "plain"' })), { ok: true, output: 'plain' });
  assert.equal(await pick(box.runCode({ code: 'return { a: [1, 2], b: null }' })), { ok: true, output: '{"a":[1,2],"b":null}' });
  assert.equal(await pick(box.runCode({ code: 'const x = 1;' })), { ok: true, output: '' });
  assert.equal(await pick(box.runCode({ code: 'await null; return 6 * 7' })), { ok: true, output: '42' });
});

test('input values are bound by name as copies', async () => {
  const params = { city: 'Oslo', nested: { n: 1 } };
  const result = await box.runCode({ code: 'params.nested.n = 99; return params.city + params.nested.n', input: { params } });
  assert.is(result.output, 'Oslo99');
  assert.is(params.nested.n, 1, 'the host object is untouched');
});

test('a thrown error or a syntax error is a failed run with the message', async () => {
  assert.equal(await pick(box.runCode({ code: 'throw new TypeError("bad input")' })), { ok: false, output: '', error: 'TypeError: bad input' });
  const syntax = await box.runCode({ code: 'return )' });
  assert.is(syntax.ok, false);
  assert.match(syntax.error!, /^SyntaxError/);
  assert.is((await box.runCode({ code: 'throw "just a string"' })).error, 'Uncaught just a string');
});

test('capabilities: arguments go out and results come back by copy; failures cross as plain messages', async () => {
  const seen: unknown[][] = [];
  const result = await box.runCode({
    code: 'const r = await echo({ q: params.q }, 2); r.extra = true; return r',
    input: { params: { q: 'hi' } },
    caps: { echo: async (args) => { seen.push(args); return { got: args }; } },
  });
  assert.is(result.output, '{"got":[{"q":"hi"},2],"extra":true}');
  assert.equal(seen, [[{ q: 'hi' }, 2]]);

  const failing = await box.runCode({
    code: 'try { await boom() } catch (e) { return [e.message, e.stack] }',
    caps: { boom: () => { throw new Error('host said no'); } },
  });
  const [message, stack] = JSON.parse(failing.output) as string[];
  assert.is(message, 'host said no');
  assert.not.match(stack!, /\.ts|\/work\/|node:/, 'no host file paths or frames reach the guest');
});

test('a capability sees its signal abort when the run ends', async () => {
  let signal: AbortSignal | undefined;
  const result = await box.runCode({
    code: 'slow(); return "done"',
    caps: { slow: (_args, s) => { signal = s; return new Promise(() => undefined); } },
  });
  assert.is(result.output, 'done');
  assert.ok(signal?.aborted);
});

test('infinite synchronous loop: stopped at the deadline', async () => {
  assert.equal(await pick(box.runCode({ code: 'while (true) {}', timeoutMs: 200 })), { ok: false, output: '', error: 'Timed out after 200 ms' });
});

test('infinite loop after an await: stopped by the host deadline', async () => {
  assert.equal(await pick(box.runCode({ code: 'await null; while (true) {}', timeoutMs: 200 })), { ok: false, output: '', error: 'Timed out after 200 ms' });
});

test('a promise that never resolves: stopped at the deadline', async () => {
  assert.equal(await pick(box.runCode({ code: 'await new Promise(() => {})', timeoutMs: 200 })), { ok: false, output: '', error: 'Timed out after 200 ms' });
});

test('memory bomb: the isolate is stopped at its memory limit', async () => {
  const result = await box.runCode({ code: 'const keep = []; while (true) keep.push(new Array(1e6).fill(1.5))', memoryMb: 16 });
  assert.equal(pick(result), { ok: false, output: '', error: 'Memory limit of 16 MB exceeded' });
  const buffer = await box.runCode({ code: 'return new ArrayBuffer(1024 * 1024 * 1024).byteLength', memoryMb: 16 });
  assert.is(buffer.ok, false);
  assert.match(buffer.error!, /RangeError: Array buffer allocation failed/);
});

test('huge output: truncated at the cap and the run fails', async () => {
  const result = await box.runCode({ code: 'return "x".repeat(5e6)', maxOutputBytes: 1000 });
  assert.is(result.ok, false);
  assert.is(result.output, 'x'.repeat(1000));
  assert.is(result.error, 'Output exceeds 1000 bytes');
  const multibyte = await box.runCode({ code: 'return "é".repeat(10)', maxOutputBytes: 5 });
  assert.is(multibyte.output, 'éé', 'cut on a character boundary');
});

test('nothing leaks from one run into the next', async () => {
  await box.runCode({ code: 'globalThis.leftover = 1; Object.prototype.polluted = "yes"; Array.prototype.push = null; return 1' });
  const next = await box.runCode({ code: 'return [typeof leftover, ({}).polluted, typeof [].push]' });
  assert.is(next.output, '["undefined",null,"function"]');
});

test('a run in flight can be cancelled by the caller', async () => {
  const controller = new AbortController();
  const pending = box.runCode({ code: 'await new Promise(() => {})', signal: controller.signal, timeoutMs: 60_000 });
  setTimeout(() => controller.abort(), 20);
  assert.equal(pick(await pending), { ok: false, output: '', error: 'Cancelled' });
});

test('concurrent runs beyond the limit are refused with 429, not queued', async () => {
  const release = new AbortController();
  const hold = () => box.runCode({ code: 'await new Promise(() => {})', signal: release.signal, timeoutMs: 60_000 });
  const busy = [hold(), hold(), hold()];
  try {
    await box.runCode({ code: 'return 1' });
    assert.unreachable('the fourth run should be refused');
  } catch (error) {
    assert.is((error as { status?: number }).status, 429);
  } finally {
    release.abort();
    await Promise.all(busy);
  }
  assert.is((await box.runCode({ code: 'return 1' })).output, '1', 'slots free again afterwards');
});

test('unloading the sandbox stops runs in flight', async () => {
  const own = await createTestKernel({ plugins: [sandbox] });
  const pending = own.kernel.resolve(coreSandbox)!.runCode({ code: 'await null; while (true) {}', timeoutMs: 60_000 });
  await own.kernel.unload('sandbox');
  const result = await pending;
  assert.is(result.ok, false);
  await own.close();
});

function pick(result: { ok: boolean; output: string; error?: string }): { ok: boolean; output: string; error?: string };
function pick(result: Promise<{ ok: boolean; output: string; error?: string }>): Promise<{ ok: boolean; output: string; error?: string }>;
function pick(result: any): any {
  if (result instanceof Promise) return result.then((r) => pick(r));
  return { ok: result.ok, output: result.output, ...(result.error !== undefined && { error: result.error }) };
}

test.run();
