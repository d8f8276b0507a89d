// Loaded VFS plugins come back after a restart, with the code that was loaded; unloaded or killed ones do not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../sdk/testing.ts';
import { eventually, listPlugins, loadPlugin, pluginSource, unloadPlugin, vfsKernel, writeProject } from './vfs-plugins-helpers.ts';

const greeter = (word: string) => ({ 'src/index.ts': pluginSource('greeter', '1.0.0', `ctx.route({ method: 'GET', path: '/', handler: () => ({ word: '${word}' }) });`) });
const looper = { 'src/index.ts': pluginSource('looper', '1.0.0', "ctx.route({ method: 'GET', path: '/', handler: () => { while (true) {} } });") };

test('a loaded plugin is loaded again at the next start, as it was loaded; an unloaded or killed one is not', async () => {
  let k: TestKernel = await vfsKernel({ config: { 'vfs-plugins': { callTimeoutMs: 300 } } });
  try {
    await writeProject(k, 'site', greeter('hello'));
    await writeProject(k, 'gone', { 'src/index.ts': pluginSource('gone', '1.0.0', "ctx.route({ method: 'GET', path: '/', handler: () => 'bye' });") });
    await writeProject(k, 'bad', looper);
    for (const project of ['site', 'gone', 'bad']) assert.is((await loadPlugin(k, project)).status, 201, project);
    assert.is((await unloadPlugin(k, 'gone', 'gone')).status, 200);
    assert.is((await k.inject({ url: '/api/vfs-plugins/looper' })).status, 503, 'the looping plugin is killed');
    // The project changes after the load: a restart brings back what was loaded, not the new files.
    await writeProject(k, 'site', greeter('changed since'));

    k = await k.restart();
    await eventually(async () => (await k.inject({ url: '/api/vfs-plugins/greeter' })).status === 200, 'greeter to be loaded again');
    assert.equal((await k.inject({ url: '/api/vfs-plugins/greeter' })).body, { word: 'hello' });
    const listed = await listPlugins(k);
    assert.equal(listed.map((p) => [p.pluginName, p.projectId, p.state]), [['greeter', 'site', 'active']]);
    assert.is((await k.inject({ url: '/api/vfs-plugins/gone' })).status, 404);
    assert.is((await k.inject({ url: '/api/vfs-plugins/looper' })).status, 404);
  } finally {
    await k.close();
  }
});

test.run();
