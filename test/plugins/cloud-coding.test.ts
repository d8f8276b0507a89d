// Coding agents and cloud coding containers: an empty coordinator, 503 on stop, body validation first, then
// fail-closed 503s — CLOUD_NOT_CONNECTED without a cloud service, promotions through it when one is loaded,
// CLOUD_BACKEND_NOT_DEPLOYED for containers and sync (never a success stub).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import cloudCodingPlugin from '../../plugins/cloud-coding/index.ts';
import { cloudCoding, definePlugin, type CloudCodingService } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

type PromoteRequest = Parameters<CloudCodingService['promote']>[0];
const calls: PromoteRequest[] = [];
/** A connected cloud account's coding service that records what it is asked. */
const fakeCloud = definePlugin({
  id: 'cloud-coding-test-service',
  version: '0.0.1',
  provides: [cloudCoding],
  setup(ctx) {
    ctx.provide(cloudCoding, {
      async promote(request) {
        calls.push(request);
        const { sourceKind, projectId, snapshotId } = request.source;
        return { promotionId: 'promo-1', status: 'accepted', source: { sourceKind, projectId, snapshotId }, workspacePath: request.workspacePath ?? '/workspace', createdAt: '2030-01-01T00:00:00.000Z' };
      },
    });
  },
});

let k: TestKernel;
test.before(async () => { k = await createTestKernel({ plugins: [cloudCodingPlugin] }); });
test.after(() => k.close());

const post = (url: string, body: unknown) => k.inject({ method: 'POST', url, body });
const source = (files: unknown[] = [{ path: 'src/index.ts', contents: 'export {}', encoding: 'utf-8' }]) => ({ sourceKind: 'vfs', projectId: 'p1', snapshotId: 's1', files });
const PROMOTIONS = '/api/cloud/coding-containers/promotions';
const CONTAINERS = '/api/cloud/coding-containers';
const SYNC = '/api/cloud/coding-containers/c-1/sync';
const validSync = { direction: 'pull', target: { sourceKind: 'vfs', projectId: 'p1', baseRevision: 's1' }, changedFiles: [], deletedFiles: ['old.txt'] };

const expectError = (response: { status: number; body: { code: string; error: string } }, status: number, code: string, what: string) => {
  assert.is(response.status, status, what);
  assert.is(response.body.code, code, what);
  assert.type(response.body.error, 'string');
};

test('coordinator status: an empty task list, not an error; stop answers 503', async () => {
  const status = await k.inject({ url: '/api/coding-agents/coordinator/status' });
  assert.is(status.status, 200);
  assert.equal(status.body, { supervisionLevel: 'none', taskCount: 0, pendingConfirmations: 0, tasks: [] });
  expectError(await post('/api/coding-agents/session-1/stop', {}), 503, 'SERVICE_UNAVAILABLE', 'stop');
});

test('validation comes first: malformed bodies are 400 INVALID_REQUEST even while disconnected', async () => {
  const bad: [string, unknown][] = [
    [PROMOTIONS, {}],
    [PROMOTIONS, { source: { ...source(), projectId: '' } }],
    [PROMOTIONS, { source: source([{ path: '../etc/passwd', contents: 'x', encoding: 'utf-8' }]) }],
    [PROMOTIONS, { source: source([{ path: '/abs', contents: 'x', encoding: 'utf-8' }]) }],
    [PROMOTIONS, { source: source([{ path: 'a/./b', contents: 'x', encoding: 'utf-8' }]) }],
    [PROMOTIONS, { source: source([{ path: 'a.bin', contents: 'not base64!', encoding: 'base64' }]) }],
    [PROMOTIONS, { source: source([{ path: 'a.txt', contents: 'x', encoding: 'latin1' }]) }],
    [PROMOTIONS, { source: source(), preferredAgent: 'gpt' }],
    [CONTAINERS, { agent: 'claude' }],
    [CONTAINERS, { agent: 'cursor', promotionId: 'promo-1' }],
    [SYNC, { ...validSync, direction: 'sideways' }],
    [SYNC, { ...validSync, target: { sourceKind: 'vfs' } }],
    [SYNC, { ...validSync, deletedFiles: ['../x'] }],
    [SYNC, { ...validSync, patches: [{ path: 'a.ts', diff: '@@ -1 +1 @@' }] }],
  ];
  for (const [url, body] of bad) expectError(await post(url, body), 400, 'INVALID_REQUEST', `${url} ${JSON.stringify(body)}`);
});

test('disconnected: valid promotion, container and sync requests fail closed with 503 CLOUD_NOT_CONNECTED', async () => {
  const files = [{ path: 'src/a.ts', contents: 'x', encoding: 'utf-8' }, { path: 'img/logo.png', contents: 'iVBORw0KGgo=', encoding: 'base64' }];
  expectError(await post(PROMOTIONS, { source: source(files), preferredAgent: 'codex' }), 503, 'CLOUD_NOT_CONNECTED', 'promotion');
  expectError(await post(CONTAINERS, { agent: 'claude', promotionId: 'promo-1', prompt: 'fix the tests' }), 503, 'CLOUD_NOT_CONNECTED', 'container');
  expectError(await post(CONTAINERS, { agent: 'opencode', source: source() }), 503, 'CLOUD_NOT_CONNECTED', 'container from source');
  expectError(await post(SYNC, validSync), 503, 'CLOUD_NOT_CONNECTED', 'sync');
  const message = (await post(PROMOTIONS, { source: source() })).body.error as string;
  assert.match(message, /connect a cloud account/i);
});

test('connected (service loaded later): promotions go through the cloud service; containers and sync stay 503 CLOUD_BACKEND_NOT_DEPLOYED', async () => {
  await k.kernel.load(fakeCloud);
  try {
    const body = { source: source(), preferredAgent: 'claude', workspacePath: '/workspace/p1', branchName: 'feature/x' };
    const promoted = await post(PROMOTIONS, body);
    assert.is(promoted.status, 201);
    assert.equal(promoted.body, {
      success: true,
      data: { promotionId: 'promo-1', status: 'accepted', source: { sourceKind: 'vfs', projectId: 'p1', snapshotId: 's1' }, workspacePath: '/workspace/p1', createdAt: '2030-01-01T00:00:00.000Z' },
    });
    assert.equal(calls, [body], 'the service receives the validated request');
    expectError(await post(CONTAINERS, { agent: 'claude', promotionId: 'promo-1' }), 503, 'CLOUD_BACKEND_NOT_DEPLOYED', 'container');
    expectError(await post(SYNC, validSync), 503, 'CLOUD_BACKEND_NOT_DEPLOYED', 'sync');
    expectError(await post(CONTAINERS, { agent: 'claude' }), 400, 'INVALID_REQUEST', 'still validated first');
  } finally {
    await k.kernel.unload('cloud-coding-test-service');
  }
  expectError(await post(PROMOTIONS, { source: source() }), 503, 'CLOUD_NOT_CONNECTED', 'after the service is unloaded');
  assert.is(calls.length, 1);
});

test.run();
