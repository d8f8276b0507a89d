// Runs examples/vfs-plugin/run.ts, as a reader would, against the real server (bin/svc.ts) with a token.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root, spawnServer, type SpawnedServer } from '../helpers/server.ts';

const TOKEN = 'vfs-plugin-example-token';
let server: SpawnedServer;

test.before(async () => {
  server = await spawnServer({ env: { SVC_API_TOKEN: TOKEN, SVC_PAIRING_DISABLED: '1' } });
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

function runExample(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'examples/vfs-plugin/run.ts'), ...args], { cwd: root, env: { PATH: process.env.PATH } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('the example compiles, loads, calls (200 and a validation 400) and unloads a plugin', async () => {
  const { code, output } = await runExample(['--url', server.url, '--token', TOKEN]);
  assert.is(code, 0, output);
  const statuses = output.split('\n').filter((line) => line.includes(' → ')).map((line) => line.replace(/^(\w+) .*\/(\S+) → (\d+)$/, '$1 $2 $3'));
  assert.equal(statuses, [
    'POST projects 201', 'PUT file 201', 'PUT file 201', 'POST compile-plugin 200', 'POST load-plugin 201',
    'POST convert 200', 'POST convert 400', 'GET plugins 200', 'DELETE temperature 200', 'POST convert 404',
  ]);
  assert.match(output, '"fahrenheit":70.7');
  assert.match(output, '"text":"21.5 °C is 70.7 °F"');
  assert.match(output, /"code":"INVALID_REQUEST"/);
  assert.match(output, '"temperature (active)"');
  assert.match(output, 'done: the plugin was compiled, loaded, called and unloaded');
});

test('run a second time, the same project and plugin load again', async () => {
  const { code, output } = await runExample(['--url', server.url, '--token', TOKEN]);
  assert.is(code, 0, output);
  assert.match(output, 'POST /api/workbench/vfs/projects → 200');
});

test('without the token the example stops at the first refusal', async () => {
  const { code, output } = await runExample(['--url', server.url]);
  assert.is(code, 1);
  assert.match(output, /Expected 200 or 201, got 401/);
});

test.run();
