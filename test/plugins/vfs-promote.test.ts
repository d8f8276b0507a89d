// POST promote-to-cloud: validation, 404s, fail-closed 503 without a connected cloud (resolved per request:
// a cloud plugin loaded or unloaded at run time is seen at once), the 202 shape with the snapshot's files
// (utf-8 text, base64 otherwise) handed to the cloud service, and the cloud's failures.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cloudCoding, definePlugin, errors, type CloudCodingService } from '../../sdk/index.ts';
import { PROJECTS, startVfs, type VfsKernel } from './vfs-helpers.ts';

type PromoteRequest = Parameters<CloudCodingService['promote']>[0];
const received: PromoteRequest[] = [];
const fakeCloud = definePlugin({
  id: 'fake-cloud', version: '0.0.1', provides: [cloudCoding],
  setup(ctx) {
    ctx.provide(cloudCoding, {
      async promote(request) {
        received.push(request);
        if (request.name === 'explode') throw new Error('socket hang up at /srv/cloud/secret');
        if (request.name === 'refused') throw errors.http(402, 'INSUFFICIENT_CREDITS', 'Not enough credits');
        const { sourceKind, projectId, snapshotId } = request.source;
        return { promotionId: `promo-${received.length}`, status: 'accepted', source: { sourceKind, projectId, snapshotId }, workspacePath: `/workspace/${request.workspacePath ?? projectId}`, createdAt: new Date().toISOString() };
      },
    });
  },
});

let vfs: VfsKernel;
let snapshotId: string;
const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]);
test.before(async () => {
  vfs = await startVfs();
  await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'app' } });
  await vfs.call({ method: 'PUT', url: `${PROJECTS}/app/file`, body: { path: 'src/main.ts', content: 'console.log("hé")\n' } });
  await vfs.call({ method: 'PUT', url: `${PROJECTS}/app/file`, body: { path: 'assets/logo.bin', content: binary.toString('base64'), encoding: 'base64' } });
  snapshotId = (await vfs.call({ method: 'POST', url: `${PROJECTS}/app/snapshots`, body: {} })).body.snapshot.id;
  await vfs.call({ method: 'PUT', url: `${PROJECTS}/app/file`, body: { path: 'later.txt', content: 'not in the snapshot' } });
});
test.after(() => vfs.close());

const promote = (body: Record<string, unknown>, project = 'app') => vfs.call({ method: 'POST', url: `${PROJECTS}/${project}/promote-to-cloud`, body });

test('invalid bodies: 400; unknown project or snapshot: 404 (checked before the cloud)', async () => {
  for (const [body, code] of [
    [{}, 'INVALID_REQUEST'],
    [{ snapshotId, preferredAgent: 'gpt' }, 'INVALID_REQUEST'],
    [{ snapshotId, branchName: 'a..b' }, 'INVALID_REQUEST'],
    [{ snapshotId, name: '' }, 'INVALID_REQUEST'],
    [{ snapshotId, workspacePath: '../outside' }, 'INVALID_PATH'],
  ] as const) {
    const response = await promote(body);
    assert.equal([response.status, response.body.code], [400, code], JSON.stringify(body));
  }
  const snapshot = await promote({ snapshotId: 'missing' });
  assert.equal([snapshot.status, snapshot.body.code], [404, 'SNAPSHOT_NOT_FOUND']);
  const project = await promote({ snapshotId }, 'missing');
  assert.equal([project.status, project.body.code], [404, 'PROJECT_NOT_FOUND']);
});

test('without a connected cloud: 503 CLOUD_NOT_CONNECTED, never a success stub', async () => {
  const response = await promote({ snapshotId, name: 'demo' });
  assert.is(response.status, 503);
  assert.is(response.body.code, 'CLOUD_NOT_CONNECTED');
  assert.match(response.body.error, /connect a cloud account/i);
  assert.is(response.body.success, undefined);
});

test('with a cloud service loaded at run time: 202 {success, data}; the snapshot\'s files, text as utf-8, bytes as base64', async () => {
  await vfs.kernel.kernel.load(fakeCloud);
  const response = await promote({ snapshotId, name: 'demo', description: 'd', preferredAgent: 'codex', workspacePath: 'apps/demo', branchName: 'feature/vfs' });
  assert.is(response.status, 202);
  assert.is(response.body.success, true);
  const { data } = response.body;
  assert.equal([data.promotionId, data.status, data.workspacePath], ['promo-1', 'accepted', '/workspace/apps/demo']);
  assert.equal(data.source, { sourceKind: 'vfs-snapshot', projectId: 'app', snapshotId });
  assert.is(new Date(data.createdAt).toISOString(), data.createdAt);
  const [request] = received;
  assert.equal({ ...request, source: undefined }, { source: undefined, name: 'demo', description: 'd', preferredAgent: 'codex', workspacePath: 'apps/demo', branchName: 'feature/vfs' });
  assert.equal(request!.source.files, [
    { path: 'assets/logo.bin', contents: binary.toString('base64'), encoding: 'base64' },
    { path: 'src/main.ts', contents: 'console.log("hé")\n', encoding: 'utf-8' },
  ]);
});

test('the cloud\'s own HTTP errors pass through; other failures are 502 without their message', async () => {
  const refused = await promote({ snapshotId, name: 'refused' });
  assert.equal([refused.status, refused.body.code], [402, 'INSUFFICIENT_CREDITS']);
  const failed = await promote({ snapshotId, name: 'explode' });
  assert.equal([failed.status, failed.body.code], [502, 'CLOUD_REQUEST_FAILED']);
  assert.not.match(failed.text, '/srv/cloud');
});

test('a cloud service unloaded at run time: 503 again', async () => {
  await vfs.kernel.kernel.unload('fake-cloud');
  const response = await promote({ snapshotId });
  assert.equal([response.status, response.body.code], [503, 'CLOUD_NOT_CONNECTED']);
});

test('no response body of this file shows a host path', () => {
  assert.not.ok(vfs.seen().includes(vfs.stateDir));
});

test.run();
