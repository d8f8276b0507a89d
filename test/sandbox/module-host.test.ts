// core.sandbox loadModule on real isolates: the manifest a guest declares, calls into its handlers,
// schemas that survive the copy to the host, capabilities, and guests the loader refuses.
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sandbox from '../../sandbox/index.ts';
import { coreSandbox, guestFetch, type SandboxModule, type SandboxService } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import { failure, guest, loadGuest, request } from './fixtures/guest.ts';
import { recordingServer, type RecordingServer } from './fixtures/recording-server.ts';

let kernel: TestKernel;
let box: SandboxService;
let upstream: RecordingServer;
const modules: SandboxModule[] = [];

test.before(async () => {
  kernel = await createTestKernel({ plugins: [sandbox] });
  box = kernel.kernel.resolve(coreSandbox)!;
  upstream = await recordingServer((r) => ({ status: 201, headers: { 'x-upstream': 'yes' }, body: `got ${r.method} ${r.url} ${r.body}` }));
});
test.after(async () => {
  for (const module of modules) module.dispose();
  await kernel.close();
  await upstream.close();
});

const load = async (...args: Parameters<typeof loadGuest> extends [unknown, ...infer R] ? R : never) => {
  const module = await loadGuest(box, ...args);
  modules.push(module);
  return module;
};

const WEATHER = guest(`
  ctx.route({
    method: 'get', path: '/forecast/:city', summary: 'A forecast',
    schema: { params: Type.Object({ city: Type.String({ minLength: 2 }) }), query: Type.Object({ days: Type.Integer({ minimum: 1, default: 1 }) }),
      response: { 200: Type.Object({ city: Type.String(), days: Type.Integer() }) } },
    handler: async ({ params, query }) => { await null; return { city: params.city, days: query.days }; },
  });
  ctx.route({ method: 'POST', path: '/items', handler: ({ body }) => reply(201, { created: body.name }) });
  ctx.route({ method: 'DELETE', path: '/items/:id', handler: () => undefined });
  ctx.route({ method: 'GET', path: '/teapot', handler: () => { throw errors.http(418, 'TEAPOT', 'I am a teapot'); } });
  ctx.route({ method: 'GET', path: '/broken', handler: () => { null.x; } });
  ctx.action({ name: 'GET_FORECAST', description: 'Forecast for a city', similes: ['WEATHER'], parameters: [{ name: 'city', description: 'City', required: true }],
    handler: async (params, context) => ({ text: 'Sunny in ' + params.city, data: { asked: context.text } }) });
  ctx.action({ name: 'PLAIN', description: 'Returns a string', handler: () => 'plain text' });
`, { id: 'weather' });

test('the manifest: id, version, routes with their schemas, actions, capabilities', async () => {
  const { manifest } = await load(WEATHER);
  assert.equal([manifest.id, manifest.version, manifest.capabilities], ['weather', '1.0.0', []]);
  assert.equal(manifest.routes.map((r) => [r.handler, r.method, r.path]), [
    ['route:0', 'GET', '/forecast/:city'], ['route:1', 'POST', '/items'], ['route:2', 'DELETE', '/items/:id'],
    ['route:3', 'GET', '/teapot'], ['route:4', 'GET', '/broken'],
  ]);
  assert.is(manifest.routes[0]!.summary, 'A forecast');
  assert.equal(manifest.routes[0]!.schema.params, { type: 'object', required: ['city'], properties: { city: { type: 'string', minLength: 2 } } });
  assert.equal(manifest.actions, [
    { handler: 'action:0', name: 'GET_FORECAST', description: 'Forecast for a city', similes: ['WEATHER'], parameters: [{ name: 'city', description: 'City', required: true }] },
    { handler: 'action:1', name: 'PLAIN', description: 'Returns a string', similes: [], parameters: [] },
  ]);
});

test('calls: async handlers, reply statuses, 204, guest HttpErrors and thrown errors, actions', async () => {
  const module = await load(WEATHER);
  assert.equal(await module.call('route:0', request({ params: { city: 'Oslo' }, query: { days: 3 } })), { status: 200, body: { city: 'Oslo', days: 3 } });
  assert.equal(await module.call('route:1', request({ method: 'POST', body: { name: 'x' } })), { status: 201, body: { created: 'x' } });
  assert.equal(await module.call('route:2', request()), { status: 204, body: undefined });
  assert.equal(pick(await failure(module.call('route:3', request()))), { status: 418, code: 'TEAPOT', message: 'I am a teapot' });
  assert.equal(pick(await failure(module.call('route:4', request()))), { status: 500, code: 'EXECUTION_FAILED', message: "TypeError: Cannot read properties of null (reading 'x')" });
  assert.equal(await module.call('action:0', { params: { city: 'Bergen' }, text: 'weather please' }), { text: 'Sunny in Bergen', data: { asked: 'weather please' } });
  assert.equal(await module.call('action:1', { params: {} }), { text: 'plain text' });
  assert.ok((await module.call('route:0', request({ params: { city: 'Oslo' }, query: { days: 1 } }))), 'the module keeps serving after guest errors');
});

test('inputs and results are copies: a handler cannot change what the host holds', async () => {
  const module = await load(guest(`
    const seen = [];
    ctx.route({ method: 'POST', path: '/keep', handler: ({ body }) => { body.items.push('guest'); seen.push(body); return { seen: seen.length, items: body.items }; } });
  `));
  const body = { items: ['host'] };
  const first = await module.call('route:0', request({ body })) as { status: number; body: { items: string[] } };
  assert.equal(body.items, ['host']);
  first.body.items.push('changed by host');
  assert.equal((await module.call('route:0', request({ body }))).body, { seen: 2, items: ['host', 'guest'] }, 'state lives on in the isolate; host copies are independent');
});

test('schemas survive the copy: TypeBox 1.x keeps ~kind off the JSON, and the copies validate like the originals', async () => {
  const original = Type.Object({
    name: Type.String({ minLength: 1, maxLength: 20 }), age: Type.Optional(Type.Integer({ minimum: 0 })),
    tags: Type.Array(Type.String(), { maxItems: 3 }), kind: Type.Union([Type.Literal('a'), Type.Literal('b')]),
    scores: Type.Record(Type.String(), Type.Number()), pair: Type.Tuple([Type.String(), Type.Boolean()]),
    when: Type.String({ format: 'date-time' }), id: Type.String({ format: 'uuid' }), note: Type.Union([Type.String(), Type.Null()]),
  });
  assert.ok(Object.getOwnPropertyNames(original).includes('~kind'), 'TypeBox marks kinds with a non-enumerable ~kind');
  const module = await load(guest(`ctx.route({ method: 'POST', path: '/p', schema: { body: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 20 }), age: Type.Optional(Type.Integer({ minimum: 0 })),
    tags: Type.Array(Type.String(), { maxItems: 3 }), kind: Type.Union([Type.Literal('a'), Type.Literal('b')]),
    scores: Type.Record(Type.String(), Type.Number()), pair: Type.Tuple([Type.String(), Type.Boolean()]),
    when: Type.String({ format: 'date-time' }), id: Type.String({ format: 'uuid' }), note: Type.Union([Type.String(), Type.Null()]),
  }) }, handler: () => 1 });`));
  const copy = module.manifest.routes[0]!.schema.body!;
  assert.not.ok(Object.getOwnPropertyNames(copy).includes('~kind'));
  const valid = { name: 'n', tags: ['x'], kind: 'a', scores: { s: 1 }, pair: ['p', true], when: '2024-01-02T03:04:05Z', id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', note: null };
  const values = [
    valid, { ...valid, age: 3 }, { ...valid, age: -1 }, { ...valid, age: 1.5 }, { ...valid, name: '' }, { ...valid, tags: ['a', 'b', 'c', 'd'] },
    { ...valid, kind: 'c' }, { ...valid, scores: { s: 'x' } }, { ...valid, pair: ['p'] }, { ...valid, pair: ['p', true, 1] }, { ...valid, when: 'yesterday' },
    { ...valid, id: 'nope' }, { ...valid, note: 3 }, { name: 'n' },
  ];
  const compiled = Compile(copy);
  for (const value of values) assert.is(compiled.Check(value), Value.Check(original, value), JSON.stringify(value));
  assert.is(values.filter((value) => compiled.Check(value)).length, 2, 'both kinds of outcome are covered');
});

test('what the host cannot check in linear time (patterns, other formats) is left out of its copy and checked in the isolate', async () => {
  const module = await load(guest(`ctx.route({ method: 'POST', path: '/p/:code', schema: {
    params: Type.Object({ code: Type.String({ pattern: '^[A-Z]{3}$' }) }),
    body: Type.Object({ site: Type.String({ format: 'uri' }), size: Type.Integer({ maximum: 9 }) }),
  }, handler: ({ params, body }) => ({ code: params.code, site: body.site }) });`));
  const { schema } = module.manifest.routes[0]!;
  assert.equal(schema.params, { type: 'object', required: ['code'], properties: { code: { type: 'string' } } });
  assert.equal((schema.body as { properties: unknown }).properties, { site: { type: 'string' }, size: { type: 'integer', maximum: 9 } });
  const good = request({ method: 'POST', params: { code: 'OSL' }, body: { site: 'https://example.com/', size: 1 } });
  assert.equal(await module.call('route:0', good), { status: 200, body: { code: 'OSL', site: 'https://example.com/' } });
  const badParams = await failure(module.call('route:0', { ...good, params: { code: 'oslo' } }));
  assert.equal([badParams.status, badParams.code, badParams.message], [400, 'INVALID_REQUEST', 'Invalid params: code must match pattern "^[A-Z]{3}$"']);
  assert.equal(badParams.details, [{ path: 'params/code', message: 'must match pattern "^[A-Z]{3}$"' }]);
  const badBody = await failure(module.call('route:0', { ...good, body: { site: 'not a uri', size: 1 } }));
  assert.equal([badBody.status, badBody.message], [400, 'Invalid body: site must match format "uri"']);
});

test('log always works; fetch is refused unless declared, and goes through the SSRF guard when it is', async () => {
  const lines: unknown[][] = [];
  const routes = `
    ctx.log.info('setting up', { n: 1 });
    ctx.route({ method: 'GET', path: '/', handler: async () => {
      ctx.log.warn('calling out');
      try { const r = await ctx.fetch('${upstream.url}/echo', { method: 'POST', body: 'ping' }); return { ok: true, status: r.status, text: r.text, header: r.headers['x-upstream'] }; }
      catch (e) { return { ok: false, error: e.message }; }
    } });
    ctx.route({ method: 'GET', path: '/private', handler: async () => { try { await ctx.fetch('http://169.254.169.254/latest/meta-data'); return 'reached'; } catch (e) { return e.message; } } });`;
  const caps = { log: (args: unknown[]) => { lines.push(args); }, fetch: guestFetch([upstream.host]) };
  const undeclared = await load(guest(routes), { caps });
  const refused = (await undeclared.call('route:0', request())).body as { ok: boolean; error: string };
  assert.equal(refused, { ok: false, error: "The plugin did not declare the fetch capability: add capabilities: ['fetch'] to definePlugin" });
  assert.is(upstream.requests.length, 0);
  await waitUntil(() => lines.length >= 2);
  assert.equal(lines.slice(0, 2), [['info', 'setting up {"n":1}'], ['warn', 'calling out']]);

  const declared = await load(guest(routes, { capabilities: ['fetch'] }), { caps });
  assert.equal(declared.manifest.capabilities, ['fetch']);
  assert.equal((await declared.call('route:0', request())).body, { ok: true, status: 201, text: 'got POST /echo ping', header: 'yes' });
  assert.match((await declared.call('route:1', request())).body as string, /URL_NOT_ALLOWED/);
  const unknown = await failure(box.loadModule({ code: (await box.compile({ entry: 'index.ts', read: async () => guest('', { capabilities: ['shell'] })['index.ts'] })).code }));
  assert.equal([unknown.status, unknown.code, unknown.message], [422, 'INVALID_PLUGIN', 'definePlugin: unknown capabilities shell (available: fetch; log is always there)']);
});

test('guests the loader refuses: 422 INVALID_PLUGIN saying why', async () => {
  const cases: [string, string, RegExp][] = [
    ['no definePlugin', 'export const x = 1;', /did not call definePlugin/],
    ['bad id', guest('', { id: 'Not_Kebab' })['index.ts']!, /id "Not_Kebab" must be kebab-case/],
    ['bad path', guest("ctx.route({ method: 'GET', path: '/../admin', handler: () => 1 });")['index.ts']!, /path "\/\.\.\/admin" must be/],
    ['wildcard path', guest("ctx.route({ method: 'GET', path: '/*all', handler: () => 1 });")['index.ts']!, /path "\/\*all" must be/],
    ['bad method', guest("ctx.route({ method: 'TRACE', path: '/', handler: () => 1 });")['index.ts']!, /method "TRACE" must be one of/],
    ['duplicate route', guest("ctx.route({ method: 'GET', path: '/a/:x', handler: () => 1 }); ctx.route({ method: 'GET', path: '/a/:y', handler: () => 1 });")['index.ts']!, /registered twice/],
    ['action name', guest("ctx.action({ name: 'lower case', description: 'd', handler: () => 1 });")['index.ts']!, /UPPER_SNAKE_CASE/],
    ['params not an object', guest("ctx.route({ method: 'GET', path: '/:a', schema: { params: Type.String() }, handler: () => 1 });")['index.ts']!, /must be an object schema/],
    ['setup throws', guest("throw new RangeError('nope');")['index.ts']!, /^setup failed: RangeError: nope$/],
    ['handler not a function', guest("ctx.route({ method: 'GET', path: '/', handler: 1 });")['index.ts']!, /handler must be a function/],
    ['throws while loading', "throw new Error('top level');", /threw while loading: Error: top level/],
    ['does not parse', 'export default {', /does not parse/],
    ['imports at run time', "import x from 'os'; export default x;", /Import "os" is not available/],
    ['defines twice', "import { definePlugin } from '@svc/sdk'; definePlugin({ id: 'a', version: '1', setup() {} }); definePlugin({ id: 'b', version: '1', setup() {} });", /only once/],
  ];
  for (const [name, code, message] of cases) {
    const compiled = await box.compile({ entry: 'index.ts', read: async () => code });
    const error = await failure(box.loadModule({ code: compiled.ok ? compiled.code : code }).then((m) => { m.dispose(); return m; }));
    assert.equal([error.status, error.code], [422, 'INVALID_PLUGIN'], name);
    assert.match(error.message, message, `${name}: ${error.message}`);
  }
  const named = await failure(box.loadModule({ code: (await box.compile({ entry: 'index.ts', read: async () => guest("throw new Error('x');", { id: 'named' })['index.ts'] })).code }));
  assert.equal(named.guest, { id: 'named', version: '1.0.0' }, 'a failure after definePlugin names the guest');
});

test('a later ctx.route (after setup) is refused inside the guest', async () => {
  const module = await load(guest(`ctx.route({ method: 'GET', path: '/', handler: () => { try { ctx.route({ method: 'GET', path: '/late', handler: () => 1 }); return 'added'; } catch (e) { return e.message; } } });`));
  assert.is((await module.call('route:0', request())).body, 'ctx.route can only be called during setup');
  assert.is(module.manifest.routes.length, 1);
});

function pick(error: { status: number; code: string; message: string }) {
  return { status: error.status, code: error.code, message: error.message };
}

async function waitUntil(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !probe(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(probe(), 'condition never held');
}

test.run();
