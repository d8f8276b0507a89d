// VFS plugins against the real server process (bin/svc.ts, the default bundle): a TypeScript plugin
// written over HTTP is compiled, loaded, served (validated, documented, reachable by the agent through
// its action), unloaded; hostile plugins are killed while the server keeps answering, and are listed
// as failed and audited.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PLUGIN_FILES } from '../../examples/vfs-plugin/plugin-files.ts';
import type { SpawnedServer } from '../helpers/server.ts';
import { sleep, start, stopAll } from './_helpers.ts';

const TOKEN = 'e2e-vfs-plugins-token';
let server: SpawnedServer;

test.before(async () => {
  server = await start({ env: { SVC_API_TOKEN: TOKEN, SVC_PAIRING_DISABLED: '1', SVC_VFS_PLUGIN_TIMEOUT_MS: '500', SVC_VFS_PLUGIN_SETUP_TIMEOUT_MS: '500', SVC_VFS_PLUGIN_MEMORY_MB: '32' } });
});
test.after(() => stopAll());

async function api(method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<{ status: number; body: any }> {
  const response = await fetch(server.url + path, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...(token && { authorization: `Bearer ${token}` }) },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function project(id: string, files: Record<string, string>): Promise<void> {
  assert.is((await api('POST', '/api/workbench/vfs/projects', { projectId: id })).status, 201);
  for (const [path, content] of Object.entries(files)) {
    assert.ok((await api('PUT', `/api/workbench/vfs/projects/${id}/file`, { path, content, encoding: 'utf-8' })).status < 300);
  }
}

test('write, compile, load, call, document, chat with its action, unload', async () => {
  await project('temperature', PLUGIN_FILES);
  const compiled = await api('POST', '/api/workbench/vfs/projects/temperature/compile-plugin', { entry: 'src/index.ts' });
  assert.is(compiled.status, 200);
  const loaded = await api('POST', '/api/workbench/vfs/projects/temperature/load-plugin', { entry: 'dist/plugin.js' });
  assert.is(loaded.status, 201);
  assert.equal(loaded.body.plugin.routes, [{ method: 'POST', path: '/api/vfs-plugins/temperature/convert' }]);

  assert.equal((await api('POST', '/api/vfs-plugins/temperature/convert', { celsius: 100 })).body, { celsius: 100, fahrenheit: 212, text: '100 °C is 212 °F' });
  const invalid = await api('POST', '/api/vfs-plugins/temperature/convert', { celsius: -300 });
  assert.equal([invalid.status, invalid.body.code], [400, 'INVALID_REQUEST']);
  assert.is((await api('POST', '/api/vfs-plugins/temperature/convert', { celsius: 1 }, null)).status, 401);

  const openapi = await api('GET', '/api/openapi.json');
  assert.is(openapi.body.paths['/api/vfs-plugins/temperature/convert'].post['x-plugin'], 'vfs-temperature');
  const runtime = await api('GET', '/api/runtime');
  assert.ok(runtime.body.plugins.some((p: { id: string; state: string }) => p.id === 'vfs-temperature' && p.state === 'active'));

  const { body: { conversation } } = await api('POST', '/api/conversations', {});
  const reply = await api('POST', `/api/conversations/${conversation.id}/messages`, { text: 'convert temperature 21' });
  assert.is(reply.status, 200);
  assert.match(reply.body.text, '21 °C is 69.8 °F', 'the agent ran the plugin\'s action in its isolate');

  assert.equal((await api('DELETE', '/api/workbench/vfs/projects/temperature/plugins/temperature')).body, { ok: true });
  assert.is((await api('POST', '/api/vfs-plugins/temperature/convert', { celsius: 1 })).status, 404);
  assert.equal((await api('GET', '/api/workbench/vfs/plugins')).body, { plugins: [] });
});

test('a looping and a memory-hungry plugin are killed; the server answers meanwhile and after; kills are audited', async () => {
  await project('hostile', {
    'src/index.ts': `import { definePlugin } from '@svc/sdk';
export default definePlugin({ id: 'hostile', version: '1.0.0', setup(ctx) {
  ctx.route({ method: 'GET', path: '/spin', handler: async () => { await null; while (true) {} } });
  ctx.route({ method: 'GET', path: '/bomb', handler: () => { const keep = []; while (true) keep.push(new Array(1e6).fill(1)); } });
} });`,
  });
  for (const [path, status, code] of [['/spin', 503, 'PLUGIN_TIMEOUT'], ['/bomb', 500, 'PLUGIN_MEMORY_LIMIT']] as const) {
    assert.is((await api('POST', '/api/workbench/vfs/projects/hostile/load-plugin', { entry: 'src/index.ts', compileFirst: true })).status, 201);
    const pending = api('GET', `/api/vfs-plugins/hostile${path}`);
    const health = await api('GET', '/api/health');
    assert.equal([health.status, health.body.ready], [200, true], 'the server answers while the plugin runs');
    const killed = await pending;
    assert.equal([killed.status, killed.body.code], [status, code]);
    const listed = (await api('GET', '/api/workbench/vfs/plugins')).body.plugins.find((p: { pluginName: string }) => p.pluginName === 'hostile');
    assert.equal([listed.state, listed.error], ['failed', killed.body.error]);
    let after = await api('GET', `/api/vfs-plugins/hostile${path}`);
    for (let i = 0; i < 100 && after.status !== 404; i++) after = await sleep(20).then(() => api('GET', `/api/vfs-plugins/hostile${path}`));
    assert.is(after.status, 404, 'the killed plugin was unloaded');
  }
  const audit = await api('GET', '/api/security/audit?type=sandbox_lifecycle');
  const kills = audit.body.entries.filter((e: { summary: string }) => e.summary.startsWith('VFS plugin "hostile" killed'));
  assert.equal(kills.map((e: { metadata: { reason: string } }) => e.metadata.reason), ['deadline', 'memory']);
  assert.is((await api('GET', '/api/health')).status, 200);
});

test.run();
