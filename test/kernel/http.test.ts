import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin, errors, file, reply, sse, Type } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

const quiet = { level: 'error' as const, write: () => {} };
const root = mkdtempSync(join(tmpdir(), 'svc-kernel-http-'));
const publicDir = join(root, 'public');
mkdirSync(join(publicDir, 'sub'), { recursive: true });
writeFileSync(join(publicDir, 'hello.txt'), 'hello static');
writeFileSync(join(publicDir, 'sub', 'page.html'), '<p>sub</p>');
writeFileSync(join(root, 'secret.txt'), 'TOP SECRET');
mkdirSync(join(root, 'public-evil'));
writeFileSync(join(root, 'public-evil', 'x.txt'), 'EVIL SIBLING');

let calls = 0;
let streamClosed!: () => void;
const streamStopped = new Promise<void>((resolve) => { streamClosed = resolve; });
const plugin = definePlugin({
  id: 'http-test', version: '1',
  setup(ctx) {
    ctx.route({
      method: 'GET', path: '/api/items/:id', access: 'public',
      schema: {
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        query: Type.Object({ limit: Type.Integer({ default: 10 }), n: Type.Optional(Type.Integer()), flag: Type.Optional(Type.Boolean()) }),
      },
      handler: ({ params, query }) => ({ id: params.id, limit: query.limit, n: query.n, flag: query.flag, types: [typeof params.id, typeof query.limit, typeof query.n] }),
    });
    ctx.route({
      method: 'POST', path: '/api/items', access: 'public', bodyLimit: 256,
      schema: { body: Type.Object({ name: Type.String({ minLength: 1 }), tags: Type.Array(Type.String(), { default: [] }), meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }) },
      handler: ({ body }) => reply(201, { created: body.name, tags: body.tags }, { Location: '/api/items/1' }),
    });
    ctx.route({ method: 'GET', path: '/api/only-get', access: 'public', handler: () => 'ok' });
    ctx.route({ method: 'DELETE', path: '/api/only-get', access: 'public', handler: () => undefined });
    ctx.route({ method: 'GET', path: '/api/crash', access: 'public', handler: () => { calls++; throw new Error('kaboom'); } });
    ctx.route({ method: 'GET', path: '/api/crash-async', access: 'public', handler: async () => { await Promise.resolve(); throw new TypeError('async kaboom'); } });
    ctx.route({ method: 'GET', path: '/api/teapot', access: 'public', handler: () => { throw errors.http(418, 'TEAPOT', 'short and stout', { ok: false }); } });
    ctx.route({ method: 'POST', path: '/api/nothing', access: 'public', handler: () => undefined });
    ctx.route({
      method: 'GET', path: '/api/events', access: 'public',
      handler: () => sse((async function* () {
        yield { event: 'greeting', id: '1', data: { hello: 'world' } };
        yield { data: 'line one\nline two' };
        yield { comment: 'keepalive' };
        yield { event: 'done' };
      })()),
    });
    ctx.route({
      method: 'GET', path: '/api/endless', access: 'public',
      handler: () => sse((async function* () {
        try {
          for (let i = 0; ; i++) { yield { data: { i } }; await sleep(5); }
        } finally {
          streamClosed();
        }
      })()),
    });
    ctx.route({ method: 'GET', path: '/api/download', access: 'public', handler: () => file(Buffer.from('a,b\n1,2\n'), { type: 'text/csv', filename: 'report.csv' }) });
    const Account = Type.Object({ name: Type.String(), apiKey: Type.String({ secret: true }), nested: Type.Object({ password: Type.String({ secret: true }), visible: Type.String() }) });
    ctx.route({
      method: 'GET', path: '/api/account', access: 'public', schema: { response: { 200: Account } },
      handler: () => ({ name: 'acct', apiKey: 'sk-live-123', nested: { password: 'pw', visible: 'yes' } }),
    });
    ctx.route({
      method: 'POST', path: '/api/account', access: 'public', schema: { response: { 201: Account } },
      handler: () => reply(201, { name: 'new', apiKey: 'sk-new', nested: { password: '', visible: 'v' } }),
    });
    ctx.route({ method: 'GET', path: ['/api/primary', '/api/alias'], access: 'public', handler: (req) => ({ path: req.path }) });
    ctx.static('/static', publicDir, 'public');
    ctx.route({ method: 'GET', path: '/api/private', handler: () => 'private' });
  },
});

let t: TestKernel;
test.before(async () => { t = await createTestKernel({ log: quiet, plugins: [plugin] }); });
test.after(async () => { await t.close(); rmSync(root, { recursive: true, force: true }); });

/** A request whose path goes out exactly as written (fetch would normalize dot segments). */
async function raw(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(await t.url());
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string): void {
  assert.is(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', 'application/json');
  assert.is(res.body.code, code);
  assert.type(res.body.error, 'string');
}

test('params and query are coerced and defaulted', async () => {
  const res = await t.inject({ url: '/api/items/42?n=5&flag=true' });
  assert.is(res.status, 200);
  assert.equal(res.body, { id: 42, limit: 10, n: 5, flag: true, types: ['number', 'number', 'number'] });
  const limited = await t.inject({ url: '/api/items/1?limit=3' });
  assert.is(limited.body.limit, 3);
});

test('validation errors are 400 INVALID_REQUEST with details', async () => {
  const badParam = await t.inject({ url: '/api/items/abc' });
  expectError(badParam, 400, 'INVALID_REQUEST');
  assert.ok(Array.isArray(badParam.body.details) && badParam.body.details.length > 0);
  assert.match(badParam.body.details[0].path, /^params/);

  expectError(await t.inject({ url: '/api/items/0' }), 400, 'INVALID_REQUEST');
  expectError(await t.inject({ url: '/api/items/1?limit=many' }), 400, 'INVALID_REQUEST');

  const badBody = await t.inject({ method: 'POST', url: '/api/items', body: { name: 5 } });
  expectError(badBody, 400, 'INVALID_REQUEST');
  assert.ok(badBody.body.details.some((d: { path: string }) => d.path.startsWith('body')));
  expectError(await t.inject({ method: 'POST', url: '/api/items', body: { name: '' } }), 400, 'INVALID_REQUEST');
});

test('a valid body gets defaults and reply() sets status and headers', async () => {
  const res = await t.inject({ method: 'POST', url: '/api/items', body: { name: 'widget' } });
  assert.is(res.status, 201);
  assert.equal(res.body, { created: 'widget', tags: [] });
  assert.is(res.headers.get('location'), '/api/items/1');
});

test('malformed JSON is 400 INVALID_REQUEST', async () => {
  expectError(await t.inject({ method: 'POST', url: '/api/items', body: '{"name": "x",' }), 400, 'INVALID_REQUEST');
  expectError(await t.inject({ method: 'POST', url: '/api/items', body: '"just a string"' }), 400, 'INVALID_REQUEST');
});

test('bodies with prototype-pollution keys are 400', async () => {
  for (const body of [
    '{"name":"x","constructor":{"prototype":{"polluted":true}}}',
    '{"name":"x","meta":{"prototype":1}}',
    '{"name":"x","meta":{"deep":{"__proto__":{"polluted":true}}}}',
    '{"name":"x","__proto__":{"polluted":true}}',
    '{"name":"x","tags":[],"meta":{"list":[{"constructor":1}]}}',
  ]) {
    const res = await t.inject({ method: 'POST', url: '/api/items', body });
    expectError(res, 400, 'INVALID_REQUEST');
  }
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('a body over the route limit is 413 PAYLOAD_TOO_LARGE', async () => {
  const res = await t.inject({ method: 'POST', url: '/api/items', body: { name: 'x'.repeat(1000) } });
  expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  // The server is fine afterwards.
  assert.is((await t.inject({ method: 'POST', url: '/api/items', body: { name: 'small' } })).status, 201);
});

test('unknown route is 404 NOT_FOUND JSON; wrong method is 405 with Allow', async () => {
  expectError(await t.inject({ url: '/api/does-not-exist' }), 404, 'NOT_FOUND');
  const wrong = await t.inject({ method: 'POST', url: '/api/only-get', body: {} });
  expectError(wrong, 405, 'METHOD_NOT_ALLOWED');
  assert.equal((wrong.headers.get('allow') ?? '').split(/,\s*/).sort(), ['DELETE', 'GET']);
});

test('a handler that throws a plain Error is a 500 INTERNAL_ERROR and the server keeps serving', async () => {
  const before = calls;
  const res = await t.inject({ url: '/api/crash' });
  expectError(res, 500, 'INTERNAL_ERROR');
  assert.is(calls, before + 1);
  expectError(await t.inject({ url: '/api/crash-async' }), 500, 'INTERNAL_ERROR');
  assert.ok(t.kernel.logs.entries().some((e) => e.level === 'error' && e.message.includes('/api/crash')));
  const next = await t.inject({ url: '/api/items/3' });
  assert.is(next.status, 200);
  const custom = await t.inject({ url: '/api/teapot' });
  assert.is(custom.status, 418);
  assert.equal(custom.body, { ok: false, error: 'short and stout', code: 'TEAPOT' });
});

test('undefined result is 204 with no body', async () => {
  const res = await t.inject({ method: 'POST', url: '/api/nothing' });
  assert.is(res.status, 204);
  assert.is(res.text, '');
});

test('sse() writes event-stream frames', async () => {
  const res = await t.inject({ url: '/api/events' });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', 'text/event-stream');
  assert.is(res.headers.get('cache-control'), 'no-cache, no-transform');
  assert.is(res.text, [
    'event: greeting\nid: 1\ndata: {"hello":"world"}\n\n',
    'data: line one\ndata: line two\n\n',
    ': keepalive\n\n',
    'event: done\ndata: null\n\n',
  ].join(''));
});

test('an sse() stream stops when the client goes away', async () => {
  const controller = new AbortController();
  const response = await fetch(`${await t.url()}/api/endless`, { signal: controller.signal });
  assert.is(response.status, 200);
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), 'data: {"i":0}');
  controller.abort();
  await reader.read().catch(() => undefined);
  const guard = sleep(5000, undefined, { ref: false }).then(() => 'still running');
  assert.is(await Promise.race([streamStopped.then(() => 'stopped'), guard]), 'stopped');
});

test('OPTIONS on a known path lists the allowed methods', async () => {
  const res = await t.inject({ method: 'OPTIONS', url: '/api/only-get' });
  assert.is(res.status, 204);
  assert.equal((res.headers.get('allow') ?? '').split(/,\s*/).sort(), ['DELETE', 'GET', 'OPTIONS']);
});

test('file() with a filename is an attachment', async () => {
  const res = await t.inject({ url: '/api/download' });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', 'text/csv');
  assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="report\.csv"/);
  assert.is(res.text, 'a,b\n1,2\n');
});

test('response schemas redact secret fields (but not empty ones)', async () => {
  const res = await t.inject({ url: '/api/account' });
  assert.is(res.status, 200);
  assert.equal(res.body, { name: 'acct', apiKey: '[REDACTED]', nested: { password: '[REDACTED]', visible: 'yes' } });
  const created = await t.inject({ method: 'POST', url: '/api/account' });
  assert.is(created.status, 201);
  assert.equal(created.body, { name: 'new', apiKey: '[REDACTED]', nested: { password: '', visible: 'v' } });
  assert.not.match(created.text, 'sk-new');
});

test('path aliases serve the same handler', async () => {
  assert.equal((await t.inject({ url: '/api/primary' })).body, { path: '/api/primary' });
  assert.equal((await t.inject({ url: '/api/alias' })).body, { path: '/api/alias' });
});

test('static routes serve files below their directory', async () => {
  const res = await t.inject({ url: '/static/hello.txt' });
  assert.is(res.status, 200);
  assert.is(res.text, 'hello static');
  assert.match(res.headers.get('content-type') ?? '', 'text/plain');
  const nested = await t.inject({ url: '/static/sub/page.html' });
  assert.is(nested.status, 200);
  assert.is(nested.text, '<p>sub</p>');
  assert.match(nested.headers.get('content-type') ?? '', 'text/html');
  expectError(await t.inject({ url: '/static/missing.txt' }), 404, 'NOT_FOUND');
  assert.is((await t.inject({ url: '/static/sub' })).status, 404, 'a directory is not a file');
});

test('static routes refuse traversal in every spelling', async () => {
  for (const [path, status] of [
    ['/static/../secret.txt', 400],
    ['/static/sub/../../secret.txt', 400],
    ['/static/..%2fsecret.txt', 400],
    ['/static/..%2Fsecret.txt', 400],
    ['/static/%2e%2e/secret.txt', 400],
    ['/static/%2e%2e%2fsecret.txt', 400],
    ['/static/sub/%2e%2e/%2e%2e/secret.txt', 400],
    ['/static/..%5csecret.txt', 400],
    ['/static/..\\secret.txt', 400],
    ['/static/sub%2f..%2f..%2fsecret.txt', 400],
    ['/static/%252e%252e%252fsecret.txt', 404],
    ['/static/..%2f..%2fpublic-evil%2fx.txt', 400],
    ['/static/..%2fpublic-evil/x.txt', 400],
    ['/static/hello.txt%00.png', 400],
  ] as const) {
    const res = await raw(path);
    assert.is(res.status, status, path);
    assert.not.match(res.body, 'TOP SECRET', path);
    assert.not.match(res.body, 'EVIL SIBLING', path);
  }
});

test('routes default to token access (open on loopback without a configured token)', async () => {
  assert.is((await t.inject({ url: '/api/private' })).status, 200);
  assert.equal(t.kernel.plugins().find((p) => p.id === 'http-test')?.state, 'active');
});

test('in production a 500 hides the error message', async () => {
  const prod = await createTestKernel({
    log: quiet, production: true,
    plugins: [definePlugin({ id: 'prod', version: '1', setup(ctx) { ctx.route({ method: 'GET', path: '/api/fail', access: 'public', handler: () => { throw new Error('db password is hunter2'); } }); } })],
  });
  try {
    const res = await prod.inject({ url: '/api/fail' });
    expectError(res, 500, 'INTERNAL_ERROR');
    assert.is(res.body.error, 'Internal error');
    assert.not.match(res.text, 'hunter2');
  } finally {
    await prod.close();
  }
});

test.run();
