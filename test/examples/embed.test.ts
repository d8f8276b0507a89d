import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket } from 'ws';
import { startEmbedded, type Embedded } from '../../examples/embed/index.ts';
import { defaultPlugins } from '../../plugins/index.ts';

/** Each test gets its own host program and state dir, stopped and removed even when it fails. */
async function withEmbedded(run: (host: Embedded) => Promise<void>): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-embed-test-'));
  const host = await startEmbedded({ port: 0, stateDir });
  try {
    await run(host);
  } finally {
    await host.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

test('the host program answers its own route', () => withEmbedded(async ({ url }) => {
  const response = await fetch(`${url}/`);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  assert.match(await response.text(), /^Host program home page/);
}));

test('/api/health reaches the mounted kernel', () => withEmbedded(async ({ url }) => {
  const response = await fetch(`${url}/api/health`);
  assert.is(response.status, 200);
  const body = await response.json() as { ready: boolean; database: string; plugins: { loaded: number; failed: number } };
  assert.is(body.ready, true);
  assert.is(body.database, 'ok');
  assert.equal(body.plugins, { loaded: defaultPlugins.length + 1, failed: 0 }, 'the default bundle plus the inline plugin');
}));

test('/v1/ reaches the inline plugin through the mount', () => withEmbedded(async ({ url }) => {
  const response = await fetch(`${url}/v1/host`);
  assert.is(response.status, 200);
  assert.equal(await response.json(), { host: 'embed-example', pid: process.pid });
}));

test('paths outside the kernel prefixes go to the host program, inside them to the kernel', () => withEmbedded(async ({ url }) => {
  const outside = await fetch(`${url}/missing`);
  assert.is(outside.status, 404);
  assert.is(await outside.text(), 'Host program: nothing at /missing\n');
  // "/apis" shares the letters of "/api" but not the prefix "/api/".
  assert.is(await (await fetch(`${url}/apis`)).text(), 'Host program: nothing at /apis\n');
  const inside = await fetch(`${url}/api/missing`);
  assert.is(inside.status, 404);
  assert.equal(await inside.json(), { error: 'No route for GET /api/missing', code: 'NOT_FOUND' });
}));

test('a WebSocket on /ws gets pong for ping', () => withEmbedded(async ({ url }) => {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/ws`);
  try {
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
    const reply = new Promise<unknown>((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))));
    socket.send(JSON.stringify({ type: 'ping' }));
    assert.equal(await reply, { type: 'pong' });
  } finally {
    socket.terminate();
  }
}));

test('upgrades on other paths are refused', () => withEmbedded(async ({ url }) => {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/elsewhere`);
  const outcome = await new Promise<string>((resolve) => {
    socket.once('open', () => resolve('open'));
    socket.once('error', (error) => resolve(error.message));
  });
  socket.terminate();
  assert.match(outcome, /socket hang up/);
}));

test.run();
