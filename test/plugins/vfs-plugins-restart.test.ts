// Loaded VFS plugins come back after a restart, with the code that was loaded; unloaded or killed ones do not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, listPlugins, loadPlugin, pluginSource, unloadPlugin, vfsKernel, writeProject } from './vfs-plugins-helpers.ts';

const greeter = (word: string) => ({ 'src/index.ts': pluginSource('greeter', '1.0.0', `ctx.route({ method: 'GET', path: '/', handler: () => ({ word: '${word}' }) });`) });
const looper = { 'src/index.ts': pluginSource('looper', '1.0.0', "ctx.route({ method: 'GET', path: '/', handler: () => { while (true) {} } });") };

test('a loaded plugin is loaded again at the next start, as it was loaded; an unloaded or killed one is not', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-vfs-restart-'));
  try {
    const first = await vfsKernel({ stateDir, config: { 'vfs-plugins': { callTimeoutMs: 300 } } });
    await writeProject(first, 'site', greeter('hello'));
    await writeProject(first, 'gone', { 'src/index.ts': pluginSource('gone', '1.0.0', "ctx.route({ method: 'GET', path: '/', handler: () => 'bye' });") });
    await writeProject(first, 'bad', looper);
    for (const project of ['site', 'gone', 'bad']) assert.is((await loadPlugin(first, project)).status, 201, project);
    assert.is((await unloadPlugin(first, 'gone', 'gone')).status, 200);
    assert.is((await first.inject({ url: '/api/vfs-plugins/looper' })).status, 503, 'the looping plugin is killed');
    // The project changes after the load: a restart brings back what was loaded, not the new files.
    await writeProject(first, 'site', greeter('changed since'));
    await first.close();

    const second = await vfsKernel({ stateDir });
    try {
      await eventually(async () => (await second.inject({ url: '/api/vfs-plugins/greeter' })).status === 200, 'greeter to be loaded again');
      assert.equal((await second.inject({ url: '/api/vfs-plugins/greeter' })).body, { word: 'hello' });
      const listed = await listPlugins(second);
      assert.equal(listed.map((p) => [p.pluginName, p.projectId, p.state]), [['greeter', 'site', 'active']]);
      assert.is((await second.inject({ url: '/api/vfs-plugins/gone' })).status, 404);
      assert.is((await second.inject({ url: '/api/vfs-plugins/looper' })).status, 404);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test.run();
