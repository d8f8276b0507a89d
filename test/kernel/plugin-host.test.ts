// core.plugins: a plugin loads, replaces and unloads other plugins at run time; every change is audited.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { auditRecorded, corePlugins, definePlugin, type AuditEntry, type PluginHost } from '../../sdk/index.ts';
import { createTestKernel } from '../../sdk/testing.ts';

const greeter = (word: string) => definePlugin({
  id: 'greeter', version: word,
  setup(ctx) { ctx.route({ method: 'GET', path: '/api/greet', handler: () => ({ word }) }); },
});

test('load, reload with a new definition, unload: routes follow, each change is audited', async () => {
  let host!: PluginHost;
  const audits: AuditEntry[] = [];
  const holder = definePlugin({
    id: 'holder', version: '1.0.0', requires: [corePlugins],
    setup(ctx) { host = ctx.use(corePlugins); ctx.on(auditRecorded, (entry) => { audits.push(entry); }); },
  });
  const k = await createTestKernel({ plugins: [holder] });
  try {
    assert.is((await k.inject({ url: '/api/greet' })).status, 404);
    assert.is((await host.load(greeter('hello'))).state, 'active');
    assert.equal((await k.inject({ url: '/api/greet' })).body, { word: 'hello' });
    assert.is((await host.load(greeter('again')).then(() => 200, (e: { status: number }) => e.status)), 409, 'a loaded id is not loaded twice');
    assert.is((await host.reload('greeter', greeter('hi'))).version, 'hi');
    assert.equal((await k.inject({ url: '/api/greet' })).body, { word: 'hi' });
    assert.equal(await host.unload('greeter'), ['greeter']);
    assert.is(host.state('greeter'), 'inactive');
    assert.is((await k.inject({ url: '/api/greet' })).status, 404);
    const changes = audits.filter((a) => a.type === 'privileged_capability_invocation').map((a) => a.metadata.action);
    assert.equal(changes, ['loaded', 'reloaded', 'unloaded']);
  } finally {
    await k.close();
  }
});

test.run();
