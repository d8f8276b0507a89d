// VFS plugins that loop or exhaust memory, at load or in a request, on a real kernel: that request
// answers 503/500 with a clear error, the isolate is killed, the plugin is unloaded and listed as failed
// with the reason, an audit entry is recorded, and the server keeps serving (meanwhile and after).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { auditRecorded, definePlugin, type AuditEntry } from '../../sdk/index.ts';
import type { TestKernel } from '../../sdk/testing.ts';
import { eventually, listPlugins, loadPlugin, pluginSource, unloadPlugin, vfsKernel, writeProject } from './vfs-plugins-helpers.ts';

let t: TestKernel;
const audits: AuditEntry[] = [];
const auditLog = definePlugin({ id: 'audit-log', version: '1.0.0', setup: (ctx) => ctx.on(auditRecorded, (entry) => { audits.push(entry); }) });

const HOSTILE = pluginSource('hostile', '1.0.0', `
  ctx.route({ method: 'GET', path: '/spin', handler: async () => { await null; while (true) {} } });
  ctx.route({ method: 'GET', path: '/bomb', handler: () => { const keep = []; while (true) keep.push(new Array(1e6).fill(1.5)); } });
  ctx.route({ method: 'GET', path: '/ok', handler: () => 'ok' });
`, ['fetch']); // fetch: calls run on the isolate's thread, under the full call deadline (module-limits.test.ts covers the synchronous budget)
const STEADY = pluginSource('steady', '1.0.0', "ctx.route({ method: 'GET', path: '/', handler: () => 'steady' });");

test.before(async () => {
  t = await vfsKernel({
    extra: [auditLog],
    config: { 'vfs-plugins': { callTimeoutMs: 400, setupTimeoutMs: 400, memoryMb: 32 } },
  });
  await writeProject(t, 'bad', {
    'src/index.ts': HOSTILE,
    'src/slow-setup.ts': pluginSource('slow-setup', '1.0.0', 'while (true) {}'),
    'src/greedy-setup.ts': pluginSource('greedy-setup', '1.0.0', 'const keep = []; while (true) keep.push(new Array(1e6).fill(1.5));'),
    'src/fixed-setup.ts': pluginSource('slow-setup', '1.0.1', "ctx.route({ method: 'GET', path: '/', handler: () => 'fixed' });"),
  });
  await writeProject(t, 'good', { 'src/index.ts': STEADY });
  assert.is((await loadPlugin(t, 'good')).status, 201);
});
test.after(() => t.close());

const get = (url: string) => t.inject({ url });
const entry = async (name: string) => (await listPlugins(t)).find((p) => p.pluginName === name);
const killAudits = () => audits.filter((a) => a.type === 'sandbox_lifecycle' && a.summary.startsWith('VFS plugin'));

/** Sends a request that kills the guest; while it runs, other routes must keep answering. */
async function killWith(path: string): Promise<{ status: number; body: Record<string, string> }> {
  assert.is((await loadPlugin(t, 'bad')).status, 201);
  const pending = get(`/api/vfs-plugins/hostile${path}`);
  const meanwhile = await Promise.all([get('/api/vfs-plugins/steady'), get('/api/workbench/vfs/plugins'), get('/api/health')]);
  assert.equal(meanwhile.map((r) => r.status), [200, 200, 200], 'the server answered while the guest ran');
  const response = await pending;
  await eventually(async () => (await get('/api/vfs-plugins/hostile/ok')).status === 404, 'the killed plugin to be unloaded');
  return response;
}

test('a request that loops: 503 PLUGIN_TIMEOUT, plugin killed, unloaded, listed failed, audited', async () => {
  const before = killAudits().length;
  const response = await killWith('/spin');
  assert.equal([response.status, response.body.code], [503, 'PLUGIN_TIMEOUT']);
  assert.is(response.body.error, 'Plugin "hostile" was stopped: a call ran past its 400 ms deadline');
  const listed = await entry('hostile');
  assert.equal([listed?.state, listed?.error, listed?.projectId], ['failed', response.body.error, 'bad']);
  const audit = killAudits().slice(before);
  assert.equal(audit.map((a) => [a.severity, a.summary, a.metadata.reason]), [['warn', 'VFS plugin "hostile" killed (deadline) and unloaded', 'deadline']]);
  assert.equal(t.kernel.owned('vfs-hostile').routes, 0);
  assert.equal((await get('/api/vfs-plugins/steady')).body, 'steady', 'another guest is untouched');
});

test('a request that exhausts memory: 500 PLUGIN_MEMORY_LIMIT, same aftermath; loading again works', async () => {
  const response = await killWith('/bomb');
  assert.equal([response.status, response.body.code], [500, 'PLUGIN_MEMORY_LIMIT']);
  assert.match(response.body.error, /exceeded its 32 MB memory limit/);
  assert.equal([(await entry('hostile'))?.state, killAudits().at(-1)?.metadata.reason], ['failed', 'memory']);
  assert.is((await loadPlugin(t, 'bad')).status, 201, 'a failed plugin can be loaded again');
  assert.equal([(await entry('hostile'))?.state, (await get('/api/vfs-plugins/hostile/ok')).body], ['active', 'ok']);
  assert.is((await unloadPlugin(t, 'bad', 'hostile')).status, 200);
});

test('loops and memory bombs in setup: the load answers 503/500, nothing is mounted, listed failed, audited', async () => {
  const slow = await loadPlugin(t, 'bad', 'src/slow-setup.ts');
  assert.equal([slow.status, slow.body.code, slow.body.error], [503, 'PLUGIN_TIMEOUT', 'Plugin "slow-setup" was stopped: loading took longer than 400 ms']);
  const greedy = await loadPlugin(t, 'bad', 'src/greedy-setup.ts');
  assert.equal([greedy.status, greedy.body.code], [500, 'PLUGIN_MEMORY_LIMIT']);
  for (const name of ['slow-setup', 'greedy-setup']) {
    const listed = await entry(name);
    assert.equal([listed?.state, listed?.projectId, listed?.routes], ['failed', 'bad', []], name);
    assert.is(t.kernel.plugins().find((p) => p.id === `vfs-${name}`), undefined, `${name} never reached the kernel`);
  }
  assert.equal(killAudits().slice(-2).map((a) => a.metadata.code), ['PLUGIN_TIMEOUT', 'PLUGIN_MEMORY_LIMIT']);
  assert.equal((await get('/api/vfs-plugins/steady')).body, 'steady');
  const fixed = await loadPlugin(t, 'bad', 'src/fixed-setup.ts');
  assert.equal([fixed.status, fixed.body.plugin.version, fixed.body.plugin.state], [201, '1.0.1', 'active'], 'a fixed version replaces the failed entry');
  assert.is((await unloadPlugin(t, 'bad', 'greedy-setup')).status, 200, 'a failed entry is forgotten on delete');
  assert.is(await entry('greedy-setup'), undefined);
});

test('a reload whose new code loops while loading leaves the old version serving', async () => {
  await writeProject(t, 'good', { 'src/next.ts': pluginSource('steady', '2.0.0', 'await null; while (true) {}') });
  const reload = await loadPlugin(t, 'good', 'src/next.ts');
  assert.equal([reload.status, reload.body.code], [503, 'PLUGIN_TIMEOUT']);
  assert.equal((await get('/api/vfs-plugins/steady')).body, 'steady');
  assert.equal([(await entry('steady'))?.state, (await entry('steady'))?.version], ['active', '1.0.0']);
});

test.run();
