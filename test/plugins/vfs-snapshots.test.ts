// VFS snapshots: shared content (no blob copied), diff statuses, rollback with its undo snapshot, pruning
// of the oldest, garbage collection of unreferenced blobs, the startup sweep, persistence across a
// kernel restart, and no response showing the host path.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECTS, q, startVfs, type VfsKernel } from './vfs-helpers.ts';

let vfs: VfsKernel;
test.before(async () => { vfs = await startVfs({ config: { maxSnapshots: 4 } }); });
test.after(() => vfs.close());

const P = `${PROJECTS}/snap`;
const put = (path: string, content: string, project = P) => vfs.call({ method: 'PUT', url: `${project}/file`, body: { path, content } });
const read = async (path: string, project = P) => (await vfs.call({ url: `${project}/file?${q(path)}` })).body.content;
const paths = async (project = P) => (await vfs.call({ url: `${project}/files` })).body.files.filter((f: any) => f.type === 'file').map((f: any) => f.path);
const snapshot = async (note?: string, project = P) => (await vfs.call({ method: 'POST', url: `${project}/snapshots`, body: note === undefined ? undefined : { note } }));
const snapshots = async (project = P) => (await vfs.call({ url: `${project}/snapshots` })).body.snapshots;
const diff = (snapshotId: string) => vfs.call({ url: `${P}/diff?snapshotId=${encodeURIComponent(snapshotId)}` });
const rollback = (snapshotId: string) => vfs.call({ method: 'POST', url: `${P}/rollback`, body: { snapshotId } });
const quota = async (project = P) => (await vfs.call({ url: `${project}/quota` })).body.quota;

let first: any;

test('POST snapshots: 201 {snapshot}; a snapshot of an unchanged tree adds no blob', async () => {
  await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'snap' } });
  await put('a.txt', 'alpha');
  await put('b.txt', 'bravo');
  await put('c/d.txt', 'delta');
  const blobs = vfs.blobCount();
  assert.is(blobs, 3);
  const response = await snapshot('first');
  assert.is(response.status, 201);
  first = response.body.snapshot;
  assert.equal(Object.keys(first).sort(), ['createdAt', 'fileCount', 'id', 'note', 'projectId']);
  assert.equal([first.projectId, first.fileCount, first.note], ['snap', 3, 'first']);
  assert.is(new Date(first.createdAt).toISOString(), first.createdAt);
  const second = (await snapshot()).body.snapshot;
  assert.is(second.note, undefined);
  assert.is(vfs.blobCount(), blobs);
  assert.equal((await snapshots()).map((s: any) => s.id), [second.id, first.id]);
});

test('identical content is stored once, across paths and projects', async () => {
  const blobs = vfs.blobCount();
  await put('copy-of-a.txt', 'alpha');
  await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'other' } });
  await put('x/y.txt', 'alpha', `${PROJECTS}/other`);
  assert.is(vfs.blobCount(), blobs);
});

test('diff: added, modified, deleted against the snapshot; same bytes rewritten is no change', async () => {
  await put('a.txt', 'alpha two');
  await vfs.call({ method: 'DELETE', url: `${P}/file?${q('b.txt')}` });
  await put('c/d.txt', 'delta');
  await put('e.txt', 'echo');
  const response = await diff(first.id);
  assert.is(response.status, 200);
  const hash = (text: string) => (response.body.diff as any[]).flatMap((d) => [d.before, d.after]).find((v) => v && v.size === text.length)?.hash;
  assert.equal(response.body.diff.map((d: any) => [d.path, d.status, Boolean(d.before), Boolean(d.after)]), [
    ['a.txt', 'modified', true, true], ['b.txt', 'deleted', true, false], ['copy-of-a.txt', 'added', false, true], ['e.txt', 'added', false, true],
  ]);
  const modified = response.body.diff[0];
  assert.equal([modified.before.size, modified.after.size], [5, 9]);
  assert.match(modified.before.hash, /^[0-9a-f]{64}$/);
  assert.is.not(modified.before.hash, modified.after.hash);
  assert.is(hash('echo'), response.body.diff[3].after.hash);
  const missing = await diff('no-such-snapshot');
  assert.equal([missing.status, missing.body.code], [404, 'SNAPSHOT_NOT_FOUND']);
});

test('GC keeps content a snapshot still references, removes what nothing references', async () => {
  // "bravo" (deleted) and "alpha" (replaced in a.txt) are still in the first snapshot.
  const blobs = vfs.blobCount();
  await put('e.txt', 'echo two');
  assert.is(vfs.blobCount(), blobs, '"echo" was only in the current tree: replaced, collected');
  await vfs.call({ method: 'DELETE', url: `${P}/file?${q('e.txt')}` });
  assert.is(vfs.blobCount(), blobs - 1);
  await put('e.txt', 'echo');
});

let undo: string;

test('rollback restores the snapshot\'s files and usage, after snapshotting the current state', async () => {
  const current = await paths();
  const response = await rollback(first.id);
  assert.is(response.status, 200);
  const { rollback: result } = response.body;
  assert.equal([result.snapshotId, result.projectId], [first.id, 'snap']);
  assert.is(new Date(result.rolledBackAt).toISOString(), result.rolledBackAt);
  undo = result.previousSnapshotId;
  assert.equal(await paths(), ['a.txt', 'b.txt', 'c/d.txt']);
  assert.equal([await read('a.txt'), await read('b.txt')], ['alpha', 'bravo']);
  assert.equal(await quota(), { usedBytes: 15, fileCount: 3, quotaBytes: 50 * 1024 * 1024, maxFileBytes: 10 * 1024 * 1024, maxFiles: 10_000 });
  const list = await snapshots();
  assert.equal([list[0].id, list[0].fileCount], [undo, current.length]);
  assert.match(list[0].note, first.id);
  assert.equal((await diff(first.id)).body.diff, []);

  const back = await rollback(undo);
  assert.is(back.status, 200);
  assert.equal(await paths(), current);
  assert.equal([await read('a.txt'), await read('e.txt')], ['alpha two', 'echo']);
  const missing = await rollback('no-such-snapshot');
  assert.equal([missing.status, missing.body.code], [404, 'SNAPSHOT_NOT_FOUND']);
  const foreign = (await snapshot(undefined, `${PROJECTS}/other`)).body.snapshot;
  assert.is((await rollback(foreign.id)).status, 404, 'a snapshot of another project');
});

test('only the newest maxSnapshots are kept; content only a pruned snapshot held is collected', async () => {
  const project = `${PROJECTS}/pruned`;
  await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'pruned' } });
  await put('p.txt', 'version one', project);
  const oldest = (await snapshot('1', project)).body.snapshot;
  await put('p.txt', 'version two', project);
  for (const note of ['2', '3', '4']) await snapshot(note, project);
  const blobs = vfs.blobCount();
  assert.equal((await snapshots(project)).map((s: any) => s.note), ['4', '3', '2', '1']);
  await snapshot('5', project);
  assert.equal((await snapshots(project)).map((s: any) => s.note), ['5', '4', '3', '2']);
  assert.is(vfs.blobCount(), blobs - 1, '"version one" went with the oldest snapshot');
  const gone = await vfs.call({ url: `${project}/diff?snapshotId=${oldest.id}` });
  assert.equal([gone.status, gone.body.code], [404, 'SNAPSHOT_NOT_FOUND']);
});

test('deleting a project collects its blobs but not those another project shares', async () => {
  await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'doomed' } });
  const blobs = vfs.blobCount();
  await put('shared.txt', 'alpha', `${PROJECTS}/doomed`);
  await put('own.txt', 'only here', `${PROJECTS}/doomed`);
  await snapshot(undefined, `${PROJECTS}/doomed`);
  await put('own.txt', 'only here, later', `${PROJECTS}/doomed`);
  assert.is(vfs.blobCount(), blobs + 2);
  assert.is((await vfs.call({ method: 'DELETE', url: `${PROJECTS}/doomed` })).status, 200);
  assert.is(vfs.blobCount(), blobs);
  assert.is(await read('x/y.txt', `${PROJECTS}/other`), 'alpha');
});

test('files, snapshots and quotas persist across a kernel restart; the sweep removes leftovers of a crash', async () => {
  const latest = (await snapshot('before restart')).body.snapshot;
  const before = { files: await paths(), snapshots: await snapshots(), quota: await quota(), a: await read('a.txt') };
  const blobs = vfs.blobCount();
  const shard = join(vfs.stateDir, 'plugins', 'vfs', 'blobs', 'ff');
  mkdirSync(shard, { recursive: true });
  writeFileSync(join(shard, 'f'.repeat(62)), 'orphan: written, never committed');
  writeFileSync(join(shard, '.abc.tmp'), 'torn write');
  await vfs.restart();
  assert.equal({ files: await paths(), snapshots: await snapshots(), quota: await quota(), a: await read('a.txt') }, before);
  assert.is(vfs.blobCount(), blobs);
  assert.not.ok(existsSync(join(shard, '.abc.tmp')));
  assert.equal((await diff(latest.id)).body.diff, []);
  assert.is((await put('after-restart.txt', 'new')).status, 201);
});

test('no response body of this file shows a host path', () => {
  assert.not.ok(vfs.seen().includes(vfs.stateDir));
  assert.not.match(vfs.seen(), /plugins\/vfs|blobs\//);
});

test.run();
