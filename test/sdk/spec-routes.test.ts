import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin, errors, specRoutes, type SpecRoute } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

const quiet = { level: 'error' as const, write: () => {} };
const TOKEN = 'spec-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const staticDir = mkdtempSync(join(tmpdir(), 'svc-sdk-spec-'));
writeFileSync(join(staticDir, 'index.html'), '<h1>spec static</h1>');

interface Runtime { agentId: string; name: string }
const runtimeCalls: (string | undefined)[] = [];
function runtimeFor(agentId: string | undefined): Runtime {
  runtimeCalls.push(agentId);
  if (agentId === 'ghost') throw errors.notFound(`Agent "${agentId}" not found`);
  return { agentId: agentId ?? 'default-agent', name: agentId ? `agent ${agentId}` : 'default' };
}

const routes: SpecRoute<Runtime>[] = [
  { type: 'GET', path: '/api/spec/hello', public: true, name: 'hello', handler: (_req, res, runtime) => { res.status(200).json({ hello: 'world', agent: runtime.agentId }); } },
  { type: 'GET', path: '/api/spec/private', handler: (_req, res) => { res.json({ secret: 'ok' }); } },
  {
    type: 'POST', path: '/api/spec/items/:kind', public: true,
    handler: (req, res) => { res.status(201).setHeader('X-Spec', 'yes').json({ kind: req.params.kind, received: req.body, q: req.query.q ?? null }); },
  },
  { type: 'PUT', path: '/api/spec/items/:kind', handler: (req, res) => { res.json({ updated: req.params.kind, body: req.body }); } },
  { type: 'DELETE', path: '/api/spec/items/:kind', handler: (_req, res) => { res.end(); } },
  { type: 'GET', path: '/api/spec/agent', handler: (req, res, runtime) => { res.json({ fromRequest: req.agentId ?? null, fromRuntime: runtime.name }); } },
  { type: 'GET', path: '/api/spec/missing', public: true, handler: (_req, res) => { res.status(404).json({ error: 'nope', code: 'NOT_FOUND' }); } },
  { type: 'STATIC', path: '/spec-ui', filePath: staticDir, public: true },
  { type: 'STATIC', path: '/spec-private-ui', filePath: staticDir },
];

let t: TestKernel;
test.before(async () => {
  t = await createTestKernel({
    log: quiet, auth: { token: TOKEN },
    plugins: [definePlugin({ id: 'spec-plugin', version: '1', setup(ctx) { specRoutes(ctx, routes, runtimeFor); } })],
  });
});
test.after(async () => { await t.close(); rmSync(staticDir, { recursive: true, force: true }); });

test('GET with res.status().json() on a public route needs no token', async () => {
  const res = await t.inject({ url: '/api/spec/hello' });
  assert.is(res.status, 200);
  assert.equal(res.body, { hello: 'world', agent: 'default-agent' });
  const notFound = await t.inject({ url: '/api/spec/missing' });
  assert.is(notFound.status, 404);
  assert.equal(notFound.body, { error: 'nope', code: 'NOT_FOUND' });
});

test('non-public routes need the configured token', async () => {
  const denied = await t.inject({ url: '/api/spec/private' });
  assert.is(denied.status, 401);
  assert.is(denied.body.code, 'UNAUTHORIZED');
  assert.is((await t.inject({ url: '/api/spec/private', headers: { authorization: 'Bearer wrong' } })).status, 401);
  const ok = await t.inject({ url: '/api/spec/private', headers: auth });
  assert.is(ok.status, 200);
  assert.equal(ok.body, { secret: 'ok' });
  assert.is((await t.inject({ url: '/api/spec/private', headers: { 'x-api-key': TOKEN } })).status, 200);
});

test('POST/PUT handlers see params, query and the JSON body', async () => {
  const res = await t.inject({ method: 'POST', url: '/api/spec/items/book?q=1', body: { title: 'Dune', pages: 412 } });
  assert.is(res.status, 201);
  assert.is(res.headers.get('x-spec'), 'yes');
  assert.equal(res.body, { kind: 'book', received: { title: 'Dune', pages: 412 }, q: '1' });
  const put = await t.inject({ method: 'PUT', url: '/api/spec/items/cd', headers: auth, body: { n: 1 } });
  assert.is(put.status, 200);
  assert.equal(put.body, { updated: 'cd', body: { n: 1 } });
  assert.is((await t.inject({ method: 'PUT', url: '/api/spec/items/cd', body: { n: 1 } })).status, 401);
  const blocked = await t.inject({ method: 'POST', url: '/api/spec/items/x', body: '{"constructor":{"prototype":{}}}' });
  assert.is(blocked.status, 400);
});

test('a handler that sends nothing is a 204', async () => {
  const res = await t.inject({ method: 'DELETE', url: '/api/spec/items/x', headers: auth });
  assert.is(res.status, 204);
  assert.is(res.text, '');
});

test('?agentId= reaches runtimeFor and the request', async () => {
  runtimeCalls.length = 0;
  const res = await t.inject({ url: '/api/spec/agent?agentId=alice', headers: auth });
  assert.is(res.status, 200);
  assert.equal(res.body, { fromRequest: 'alice', fromRuntime: 'agent alice' });
  const none = await t.inject({ url: '/api/spec/agent', headers: auth });
  assert.equal(none.body, { fromRequest: null, fromRuntime: 'default' });
  assert.equal(runtimeCalls, ['alice', undefined]);
  const ghost = await t.inject({ url: '/api/spec/agent?agentId=ghost', headers: auth });
  assert.is(ghost.status, 404);
  assert.is(ghost.body.code, 'NOT_FOUND');
});

test('STATIC routes serve files from filePath, honoring public', async () => {
  const res = await t.inject({ url: '/spec-ui/index.html' });
  assert.is(res.status, 200);
  assert.is(res.text, '<h1>spec static</h1>');
  assert.match(res.headers.get('content-type') ?? '', 'text/html');
  assert.is((await t.inject({ url: '/spec-private-ui/index.html' })).status, 401);
  assert.is((await t.inject({ url: '/spec-private-ui/index.html', headers: auth })).text, '<h1>spec static</h1>');
  assert.is((await t.inject({ url: '/spec-ui/nope.html' })).status, 404);
});

test('routes are listed with their access and name', async () => {
  const listed = t.kernel.plugins().find((p) => p.id === 'spec-plugin');
  assert.is(listed?.state, 'active');
  assert.equal(t.kernel.owned('spec-plugin').routes, routes.length);
});

test('a STATIC route without filePath is refused', async () => {
  const info = await t.kernel.load(definePlugin({
    id: 'broken-spec', version: '1',
    setup(ctx) { specRoutes(ctx, [{ type: 'STATIC', path: '/broken' }], () => undefined); },
  }));
  assert.is(info.state, 'failed');
  assert.match(info.error ?? '', 'filePath');
});

test.run();
