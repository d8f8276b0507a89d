// Without --no-node-snapshot, isolated-vm would crash the process later; the sandbox must instead
// refuse to start with a clear message, and sandbox-backed routes must answer 503 (never a segfault).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hasNoSnapshotFlag } from '../../sandbox/node-flags.ts';
import { root } from '../helpers/server.ts';

test('the flag is found on the command line or in NODE_OPTIONS', () => {
  assert.ok(hasNoSnapshotFlag(['--no-node-snapshot', '--import', 'tsx'], ''));
  assert.ok(hasNoSnapshotFlag([], '--max-old-space-size=512 --no-node-snapshot'));
  assert.not.ok(hasNoSnapshotFlag(['--import', 'tsx'], '--no-node-snapshots'));
});

test('started without the flag: sandbox failed with a clear message, code handler answers 503', async () => {
  const { NODE_OPTIONS: _dropped, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/sandbox/fixtures/without-snapshot-flag.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.is(code, 0, stderr);
  const report = JSON.parse(stdout.trim().split('\n').pop()!) as { state: string; error: string; created: number; status: number; body: { code: string } };
  assert.is(report.state, 'failed');
  assert.match(report.error, '--no-node-snapshot');
  assert.is(report.created, 201, 'custom actions still work without the sandbox');
  assert.equal([report.status, report.body.code], [503, 'SERVICE_UNAVAILABLE']);
});

test.run();
