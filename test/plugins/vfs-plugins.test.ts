// The vfs-plugins routes on a real kernel with the real vfs and sandbox plugins: compile into the
// project, load as kernel plugin vfs-<id> (routes namespaced, validated, documented; actions in the
// agent's registry), list, reload, unload, and the refusals (409, 422, 404, 503).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreKernel } from '../../sdk/index.ts';
import type { TestKernel } from '../../sdk/testing.ts';
import { compilePlugin, listPlugins, loadPlugin, pluginSource, unloadPlugin, vfsKernel, writeProject } from './vfs-plugins-helpers.ts';

const TOKEN = 'vfs-plugins-test-token';
const WRONG_TOKEN = { authorization: 'Bearer wrong' };
let t: TestKernel & { actions: Awaited<ReturnType<typeof vfsKernel>>['actions'] };

const WEATHER = (version: string, greeting = 'Forecast') => ({
  'src/index.ts': pluginSource('weather', version, `
    ctx.route({
      method: 'POST', path: '/forecast/:city', summary: 'Forecast for a city',
      schema: { params: Type.Object({ city: Type.String({ minLength: 2 }) }), body: Type.Object({ days: Type.Integer({ minimum: 1, maximum: 7 }) }),
        response: { 200: Type.Object({ text: Type.String() }) } },
      handler: ({ params, body }) => ({ text: forecast(params.city, body.days) }),
    });
    ctx.route({ method: 'GET', path: '/', handler: () => ({ version: '${version}' }) });
    ctx.action({ name: 'GET_FORECAST', description: 'Weather forecast for a city', similes: ['WEATHER'],
      parameters: [{ name: 'city', description: 'City name', required: true }], handler: (params) => forecast(params.city, 1) });
  `).replace("from '@svc/sdk';", `from '@svc/sdk';\nimport { forecast } from './forecast';`),
  'src/forecast.ts': `export const forecast = (city: string, days: number): string => \`${greeting} for \${city}: sunny for \${days} day(s)\`;`,
});

test.before(async () => {
  t = await vfsKernel({ auth: { token: TOKEN } });
});
test.after(() => t.close());

const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => t.inject({ method, url, body, headers });

test('compile-plugin bundles the project into outFile inside it', async () => {
  await writeProject(t, 'alpha', WEATHER('1.0.0'));
  const compiled = await call('POST', '/api/workbench/vfs/projects/alpha/compile-plugin', { entry: 'src/index.ts' });
  assert.is(compiled.status, 200, compiled.text);
  const { bytes, durationMs, ...rest } = compiled.body.compiled;
  assert.equal(rest, { entry: 'src/index.ts', outFile: 'dist/plugin.js', format: 'esm', target: 'es2022', warnings: [] });
  assert.ok(bytes > 100 && durationMs > 0);
  const file = await call('GET', '/api/workbench/vfs/projects/alpha/file?path=dist/plugin.js');
  assert.is(file.status, 200);
  assert.is(Buffer.byteLength(file.body.content), bytes);
  assert.match(file.body.content, 'sunny for');
  const custom = await call('POST', '/api/workbench/vfs/projects/alpha/compile-plugin', { entry: 'src/index.ts', outFile: 'out/p.cjs', format: 'cjs', target: 'es2020' });
  assert.equal([custom.status, custom.body.compiled.outFile, custom.body.compiled.format], [200, 'out/p.cjs', 'cjs']);
});

test('compile failures: 422 COMPILE_FAILED with details; bad input 400; unknown project 404', async () => {
  await writeProject(t, 'broken', { 'src/index.ts': "import { x } from 'fs';\nexport default x;", 'src/syntax.ts': 'const = 1;' });
  const bare = await call('POST', '/api/workbench/vfs/projects/broken/compile-plugin', { entry: 'src/index.ts' });
  assert.is(bare.status, 422);
  assert.is(bare.body.code, 'COMPILE_FAILED');
  assert.equal(bare.body.details, [{ file: 'src/index.ts', line: 1, column: 18, message: 'Import "fs" is not allowed: a plugin imports project files (relative paths) and @svc/sdk only' }]);
  assert.match(bare.body.error, /^Compiling src\/index\.ts failed: src\/index\.ts:1:18: Import "fs"/);
  const syntax = await call('POST', '/api/workbench/vfs/projects/broken/compile-plugin', { entry: 'src/syntax.ts' });
  assert.equal([syntax.status, syntax.body.details[0].file, syntax.body.details[0].line], [422, 'src/syntax.ts', 1]);
  const missing = await call('POST', '/api/workbench/vfs/projects/broken/compile-plugin', { entry: 'src/none.ts' });
  assert.equal([missing.status, missing.body.details[0].message], [422, 'The entry file src/none.ts does not exist']);
  assert.is((await call('POST', '/api/workbench/vfs/projects/broken/compile-plugin', { entry: 'src/index.ts', format: 'amd' })).status, 400);
  assert.is((await call('POST', '/api/workbench/vfs/projects/broken/compile-plugin', { entry: 'src/index.ts', target: 'es3' })).status, 400);
  const outside = await call('POST', '/api/workbench/vfs/projects/alpha/compile-plugin', { entry: 'src/index.ts', outFile: '../escape.js' });
  assert.equal([outside.status, outside.body.code], [400, 'INVALID_PATH']);
  const unknown = await call('POST', '/api/workbench/vfs/projects/nope/compile-plugin', { entry: 'src/index.ts' });
  assert.equal([unknown.status, unknown.body.code], [404, 'PROJECT_NOT_FOUND']);
  assert.is((await call('POST', '/api/workbench/vfs/projects/alpha/compile-plugin', { entry: 'src/index.ts' }, WRONG_TOKEN)).status, 401, 'the API token is required');
});

test('load-plugin: the guest serves under /api/vfs-plugins/<id> with the token, validated with its schemas, listed in OpenAPI', async () => {
  const loaded = await call('POST', '/api/workbench/vfs/projects/alpha/load-plugin', { entry: 'src/index.ts', compileFirst: true });
  assert.is(loaded.status, 201, loaded.text);
  const { loadedAt, ...plugin } = loaded.body.plugin;
  assert.equal(plugin, {
    pluginName: 'weather', pluginId: 'vfs-weather', projectId: 'alpha', version: '1.0.0', state: 'active', actions: ['GET_FORECAST'],
    routes: [{ method: 'POST', path: '/api/vfs-plugins/weather/forecast/:city' }, { method: 'GET', path: '/api/vfs-plugins/weather' }],
  });
  assert.ok(Math.abs(loadedAt - Date.now()) < 60_000);
  const ok = await call('POST', '/api/vfs-plugins/weather/forecast/Oslo', { days: 2 });
  assert.equal([ok.status, ok.body], [200, { text: 'Forecast for Oslo: sunny for 2 day(s)' }]);
  const invalid = await call('POST', '/api/vfs-plugins/weather/forecast/Oslo', { days: 9 });
  assert.equal([invalid.status, invalid.body.code, invalid.body.details], [400, 'INVALID_REQUEST', [{ path: 'body/days', message: 'must be <= 7' }]]);
  assert.is((await call('POST', '/api/vfs-plugins/weather/forecast/O', { days: 1 })).status, 400);
  assert.is((await call('POST', '/api/vfs-plugins/weather/forecast/Oslo', { days: 1 }, WRONG_TOKEN)).status, 401, 'guest routes need the API token');
  assert.equal((await call('GET', '/api/vfs-plugins/weather')).body, { version: '1.0.0' });
  const openapi = await call('GET', '/api/openapi.json');
  const operation = openapi.body.paths['/api/vfs-plugins/weather/forecast/{city}'].post;
  assert.equal([operation['x-plugin'], operation['x-access'], operation.summary], ['vfs-weather', 'token', 'Forecast for a city']);
  assert.equal(operation.requestBody.content['application/json'].schema.properties.days, { type: 'integer', minimum: 1, maximum: 7 });
  const runtime = t.kernel.resolve(coreKernel)!.plugins().find((p) => p.id === 'vfs-weather');
  assert.equal([runtime?.state, runtime?.version], ['active', '1.0.0']);
  assert.equal((await listPlugins(t)).map((p) => [p.pluginName, p.state]), [['weather', 'active']]);
});

test('actions join the agent registry and run in the isolate', async () => {
  const action = t.actions.get('GET_FORECAST');
  assert.ok(action);
  assert.equal([action!.description, action!.similes, action!.parameters], ['Weather forecast for a city', ['WEATHER'], [{ name: 'city', description: 'City name', required: true }]]);
  assert.equal(await action!.handler({ city: 'Bergen' }, { signal: new AbortController().signal }), { text: 'Forecast for Bergen: sunny for 1 day(s)' });
});

test('loading again from the same project replaces the version (200); another project gets 409', async () => {
  await writeProject(t, 'alpha', WEATHER('2.0.0', 'Outlook'));
  const again = await call('POST', '/api/workbench/vfs/projects/alpha/load-plugin', { entry: 'src/index.ts', compileFirst: true });
  assert.equal([again.status, again.body.plugin.version, again.body.plugin.state], [200, '2.0.0', 'active']);
  assert.equal((await call('GET', '/api/vfs-plugins/weather')).body, { version: '2.0.0' });
  assert.match((await call('POST', '/api/vfs-plugins/weather/forecast/Oslo', { days: 1 })).body.text, /^Outlook/);
  assert.match((await t.actions.get('GET_FORECAST')!.handler({ city: 'X' }, { signal: new AbortController().signal })).text, /^Outlook/, 'the action was replaced too');
  assert.equal(t.kernel.resolve(coreKernel)!.routes().filter((r) => r.pluginId === 'vfs-weather').length, 2, 'no route of the old version is left');

  await writeProject(t, 'beta', WEATHER('9.9.9'));
  const clash = await call('POST', '/api/workbench/vfs/projects/beta/load-plugin', { entry: 'src/index.ts', compileFirst: true });
  assert.equal([clash.status, clash.body.code, clash.body.error], [409, 'CONFLICT', 'A VFS plugin named "weather" is already loaded from project "alpha"; unload it there first']);
  assert.equal((await call('GET', '/api/vfs-plugins/weather')).body, { version: '2.0.0' }, 'the loaded one is untouched');
});

test('compileFirst false loads an already compiled module; TypeScript source is refused with 422', async () => {
  await writeProject(t, 'gamma', { 'src/index.ts': pluginSource('echo', '1.0.0', "ctx.route({ method: 'POST', path: '/', handler: ({ body }) => body });") });
  assert.is((await compilePlugin(t, 'gamma', { entry: 'src/index.ts', outFile: 'build/echo.js', format: 'iife' })).status, 200);
  const source = await call('POST', '/api/workbench/vfs/projects/gamma/load-plugin', { entry: 'src/index.ts', compileFirst: false });
  assert.equal([source.status, source.body.code], [422, 'INVALID_PLUGIN']);
  assert.match(source.body.error, 'Import "@svc/sdk" is not available: compile the plugin first');
  const compiled = await call('POST', '/api/workbench/vfs/projects/gamma/load-plugin', { entry: 'build/echo.js' });
  assert.is(compiled.status, 201, compiled.text);
  assert.equal((await call('POST', '/api/vfs-plugins/echo', { any: ['json'] })).body, { any: ['json'] }, 'a route without a body schema still receives the JSON body');
  assert.equal((await call('POST', '/api/workbench/vfs/projects/gamma/load-plugin', { entry: 'build/missing.js' })).body.code, 'FILE_NOT_FOUND');
});

test('unload: routes and actions go; unknown names and other projects are 404', async () => {
  assert.equal([(await unloadPlugin(t, 'beta', 'weather')).status], [404], 'not loaded from beta');
  const missing = await call('DELETE', '/api/workbench/vfs/projects/alpha/plugins/nothing');
  assert.equal([missing.status, missing.body.code], [404, 'NOT_FOUND']);
  const done = await call('DELETE', '/api/workbench/vfs/projects/alpha/plugins/weather');
  assert.equal([done.status, done.body], [200, { ok: true }]);
  assert.is((await call('GET', '/api/vfs-plugins/weather')).status, 404);
  assert.is((await call('POST', '/api/vfs-plugins/weather/forecast/Oslo', { days: 1 })).status, 404);
  assert.is(t.actions.get('GET_FORECAST'), undefined);
  assert.equal(t.kernel.owned('vfs-weather'), { routes: 0, listeners: 0, timers: 0, wsHandlers: 0, services: 0, disposables: 0 });
  assert.not.ok((await call('GET', '/api/openapi.json')).body.paths['/api/vfs-plugins/weather'], 'gone from OpenAPI');
  assert.equal((await listPlugins(t)).map((p) => p.pluginName), ['echo']);
  const beta = await call('POST', '/api/workbench/vfs/projects/beta/load-plugin', { entry: 'src/index.ts', compileFirst: true });
  assert.is(beta.status, 201, 'the name is free for another project now');
  assert.is((await unloadPlugin(t, 'beta', 'weather')).status, 200);
});

test('a guest cannot take a server path or an action name that exists', async () => {
  await writeProject(t, 'squat', { 'src/index.ts': pluginSource('runtime', '1.0.0', "ctx.route({ method: 'GET', path: '/api/health', handler: () => 'hijacked' });") });
  const squat = await loadPlugin(t, 'squat');
  assert.is(squat.status, 201);
  assert.equal(squat.body.plugin.routes, [{ method: 'GET', path: '/api/vfs-plugins/runtime/api/health' }]);
  assert.not.equal((await call('GET', '/api/health')).body, 'hijacked');
  assert.is((await unloadPlugin(t, 'squat', 'runtime')).status, 200);

  t.actions.add({ name: 'TAKEN', description: 'built in', handler: async () => ({ text: 'built in' }) });
  await writeProject(t, 'taker', { 'src/index.ts': pluginSource('taker', '1.0.0', "ctx.action({ name: 'TAKEN', description: 'mine', handler: () => 'guest' });") });
  const taken = await loadPlugin(t, 'taker');
  assert.equal([taken.status, taken.body.code], [422, 'INVALID_PLUGIN']);
  assert.match(taken.body.error, /already registered/);
  assert.equal((await t.actions.get('TAKEN')!.handler({}, { signal: new AbortController().signal })).text, 'built in');
  const listed = (await listPlugins(t)).find((p) => p.pluginName === 'taker')!;
  assert.equal([listed.state, (listed.error as string).includes('already registered')], ['failed', true]);
  assert.equal([(await unloadPlugin(t, 'taker', 'taker')).status, (await listPlugins(t)).some((p) => p.pluginName === 'taker')], [200, false], 'a failed entry can be deleted');
});

test('at most maxPlugins are loaded at once (409 TOO_MANY_PLUGINS)', async () => {
  const own = await vfsKernel({ config: { 'vfs-plugins': { maxPlugins: 1 } } });
  try {
    await writeProject(own, 'p', { 'a.ts': pluginSource('first', '1.0.0', ''), 'b.ts': pluginSource('second', '1.0.0', '') });
    assert.is((await loadPlugin(own, 'p', 'a.ts')).status, 201);
    const second = await loadPlugin(own, 'p', 'b.ts');
    assert.equal([second.status, second.body.code], [409, 'TOO_MANY_PLUGINS']);
    assert.is((await loadPlugin(own, 'p', 'a.ts')).status, 200, 'reloading a loaded one is not a new one');
  } finally {
    await own.close();
  }
});

test('without the sandbox, compile and load answer 503 and listing still works', async () => {
  const own = await vfsKernel({ withoutSandbox: true });
  try {
    await writeProject(own, 'p', { 'a.ts': pluginSource('first', '1.0.0', '') });
    const compile = await compilePlugin(own, 'p', { entry: 'a.ts' });
    assert.equal([compile.status, compile.body.code], [503, 'SERVICE_UNAVAILABLE']);
    assert.match(compile.body.error, /sandbox is not running/);
    assert.is((await loadPlugin(own, 'p', 'a.ts')).status, 503);
    assert.equal(await listPlugins(own), []);
  } finally {
    await own.close();
  }
});

test('when the sandbox reloads, guests are set up again in fresh isolates and stay listed', async () => {
  await writeProject(t, 'counter', { 'src/index.ts': pluginSource('counter', '1.0.0', "let n = 0; ctx.route({ method: 'POST', path: '/hit', handler: () => ({ n: ++n }) });") });
  assert.is((await loadPlugin(t, 'counter')).status, 201);
  await call('POST', '/api/vfs-plugins/counter/hit', {});
  assert.equal((await call('POST', '/api/vfs-plugins/counter/hit', {})).body, { n: 2 });
  assert.is((await t.kernel.unload('sandbox').then(() => 200, (e: { status: number }) => e.status)), 409, 'guests require the sandbox');
  await t.kernel.reload('sandbox');
  assert.equal((await call('POST', '/api/vfs-plugins/counter/hit', {})).body, { n: 1 }, 'a fresh isolate');
  const listed = (await listPlugins(t)).find((p) => p.pluginName === 'counter')!;
  assert.equal([listed.state, listed.projectId], ['active', 'counter']);
  assert.is((await unloadPlugin(t, 'counter', 'counter')).status, 200);
});

test.run();
