// VFS quotas with small configured limits: per-file size, project size, file count and project count each
// answer 413 QUOTA_EXCEEDED and change nothing; concurrent writes to one project keep the totals exact.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECTS, q, startVfs, type VfsKernel } from './vfs-helpers.ts';

let vfs: VfsKernel;
test.before(async () => { vfs = await startVfs({ config: { maxFileBytes: 100, quotaBytes: 250, maxFiles: 3, maxProjects: 3 } }); });
test.after(() => vfs.close());

const open = (projectId: string) => vfs.call({ method: 'POST', url: PROJECTS, body: { projectId } });
const put = (id: string, path: string, size: number, fill = 'x') => vfs.call({ method: 'PUT', url: `${PROJECTS}/${id}/file`, body: { path, content: fill.repeat(size) } });
/** Everything a refused write must leave as it was. */
const state = async (id: string) => ({
  quota: (await vfs.call({ url: `${PROJECTS}/${id}/quota` })).body.quota,
  files: (await vfs.call({ url: `${PROJECTS}/${id}/files` })).body.files,
  blobs: vfs.blobCount(),
});
const assertRefused = (response: { status: number; body: any }, what: string) => assert.equal([response.status, response.body.code], [413, 'QUOTA_EXCEEDED'], what);

test('quota reports the configured limits', async () => {
  const created = await open('small');
  assert.equal(created.body.quota, { usedBytes: 0, fileCount: 0, quotaBytes: 250, maxFileBytes: 100, maxFiles: 3 });
});

test('a file over maxFileBytes: 413, nothing written', async () => {
  assert.is((await put('small', 'a.txt', 100)).status, 201);
  const before = await state('small');
  assertRefused(await put('small', 'big.txt', 101), 'new file');
  assertRefused(await put('small', 'a.txt', 101), 'replacement');
  assert.equal(await state('small'), before);
  assert.is((await vfs.call({ url: `${PROJECTS}/small/file?${q('a.txt')}` })).body.content, 'x'.repeat(100));
});

test('a write past the project quota: 413, nothing written; replacing counts only the difference', async () => {
  assert.is((await put('small', 'b.txt', 100)).status, 201);
  const before = await state('small');
  assertRefused(await put('small', 'c.txt', 51), 'new file past 250 bytes');
  assert.equal(await state('small'), before);
  assert.equal(before.quota, { usedBytes: 200, fileCount: 2, quotaBytes: 250, maxFileBytes: 100, maxFiles: 3 });
  assert.is((await put('small', 'b.txt', 40, 'y')).status, 200);
  assert.equal((await state('small')).quota.usedBytes, 140);
  assert.is((await put('small', 'c.txt', 100)).status, 201);
  assertRefused(await put('small', 'b.txt', 51), 'replacement growing past 250 bytes');
  assert.equal((await state('small')).quota, { usedBytes: 240, fileCount: 3, quotaBytes: 250, maxFileBytes: 100, maxFiles: 3 });
});

test('a file past maxFiles: 413; replacing and deleting still work, and free a slot', async () => {
  const before = await state('small');
  assertRefused(await put('small', 'd.txt', 1), 'fourth file');
  assert.equal(await state('small'), before);
  assert.is((await put('small', 'a.txt', 5)).status, 200);
  assert.is((await vfs.call({ method: 'DELETE', url: `${PROJECTS}/small/file?${q('c.txt')}` })).status, 200);
  assert.is((await put('small', 'd.txt', 1)).status, 201);
  assert.equal((await state('small')).quota, { usedBytes: 46, fileCount: 3, quotaBytes: 250, maxFileBytes: 100, maxFiles: 3 });
});

test('concurrent writes to one project: exactly as many succeed as the quota allows, totals exact', async () => {
  await open('race');
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => put('race', `f${i}.txt`, 100, String(i))));
  const statuses = results.map((r) => r.status).sort();
  assert.equal(statuses, [201, 201, 413, 413, 413, 413, 413, 413]);
  const { quota, files } = await state('race');
  assert.equal([quota.usedBytes, quota.fileCount, files.length], [200, 2, 2]);
});

test('the project limit: a new project past maxProjects is 413; opening an existing one still works', async () => {
  assert.is((await open('third')).status, 201);
  assertRefused(await open('fourth'), 'fourth project');
  assert.is((await vfs.call({ url: `${PROJECTS}/fourth/files` })).status, 404);
  assert.is((await open('small')).status, 200);
  assert.is((await vfs.call({ method: 'DELETE', url: `${PROJECTS}/third` })).status, 200);
  assert.is((await open('fourth')).status, 201);
});

test.run();
