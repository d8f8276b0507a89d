// VFS projects and files over HTTP: create/open, utf-8 and base64 round trips of binary bytes, listing with
// implied directories, path and id validation, file/directory conflicts, the vfsProjects service, and
// no response showing the host path.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { vfsProjects } from '../../sdk/index.ts';
import { PROJECTS, q, startVfs, type VfsKernel } from './vfs-helpers.ts';

let vfs: VfsKernel;
test.before(async () => { vfs = await startVfs(); });
test.after(() => vfs.close());

const put = (id: string, path: string, content: string, encoding?: string) =>
  vfs.call({ method: 'PUT', url: `${PROJECTS}/${id}/file`, body: { path, content, ...(encoding && { encoding }) } });
const get = (id: string, path: string, encoding = 'utf-8') => vfs.call({ url: `${PROJECTS}/${id}/file?${q(path)}&encoding=${encoding}` });

test('POST projects: 201 when created, 200 with the same body when it exists', async () => {
  const created = await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'alpha' } });
  assert.is(created.status, 201);
  assert.equal(created.body, {
    project: { projectId: 'alpha' },
    quota: { usedBytes: 0, fileCount: 0, quotaBytes: 50 * 1024 * 1024, maxFileBytes: 10 * 1024 * 1024, maxFiles: 10_000 },
  });
  const again = await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'alpha' } });
  assert.equal([again.status, again.body], [200, created.body]);
  const quota = await vfs.call({ url: `${PROJECTS}/alpha/quota` });
  assert.equal(quota.body, { quota: created.body.quota });
});

test('invalid project ids: 400 INVALID_REQUEST; unknown project: 404 PROJECT_NOT_FOUND', async () => {
  for (const projectId of ['..', '.x', 'a..b', 'a/b', '', 'x'.repeat(65)]) {
    const response = await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId } });
    assert.equal([response.status, response.body.code], [400, 'INVALID_REQUEST'], projectId);
  }
  const bad = await vfs.call({ url: `${PROJECTS}/a..b/files` });
  assert.equal([bad.status, bad.body.code], [400, 'INVALID_REQUEST']);
  for (const url of [`${PROJECTS}/nope/files`, `${PROJECTS}/nope/quota`, `${PROJECTS}/nope/file?path=a`]) {
    const response = await vfs.call({ url });
    assert.equal([response.status, response.body.code], [404, 'PROJECT_NOT_FOUND'], url);
  }
  const write = await put('nope', 'a.txt', 'x');
  assert.equal([write.status, write.body.code], [404, 'PROJECT_NOT_FOUND']);
});

test('utf-8 round trip: 201 for a new file, 200 when replaced; the BOM and every character survive', async () => {
  const text = '\ufeffHéllo, wörld ✓ 𝄞\n\tline 2\r\n\u0000end';
  const first = await put('alpha', 'docs/hello.txt', text);
  assert.is(first.status, 201);
  assert.equal(Object.keys(first.body.file).sort(), ['mtimeMs', 'path', 'size', 'type']);
  assert.equal([first.body.file.path, first.body.file.type, first.body.file.size], ['docs/hello.txt', 'file', Buffer.byteLength(text)]);
  const read = await get('alpha', 'docs/hello.txt');
  assert.equal([read.status, read.body], [200, { path: 'docs/hello.txt', encoding: 'utf-8', content: text }]);
  const replaced = await put('alpha', 'docs/hello.txt', 'second');
  assert.is(replaced.status, 200);
  assert.is((await get('alpha', 'docs/hello.txt')).body.content, 'second');
});

test('base64 round trip of every byte value; a utf-8 read of non-UTF-8 bytes is 400 suggesting base64', async () => {
  const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256));
  const written = await put('alpha', 'bin/data.bin', bytes.toString('base64'), 'base64');
  assert.equal([written.status, written.body.file.size], [201, 512]);
  const read = await get('alpha', 'bin/data.bin', 'base64');
  assert.equal(Buffer.from(read.body.content, 'base64'), bytes);
  assert.is(read.body.encoding, 'base64');
  const asText = await get('alpha', 'bin/data.bin');
  assert.equal([asText.status, asText.body.code], [400, 'NOT_UTF8']);
  assert.match(asText.body.error, 'base64');
  const text = await get('alpha', 'docs/hello.txt', 'base64');
  assert.is(Buffer.from(text.body.content, 'base64').toString(), 'second');
  for (const content of ['not base64!', 'QUJD=', 'QQ']) {
    const response = await put('alpha', 'bin/bad.bin', content, 'base64');
    assert.equal([response.status, response.body.code], [400, 'INVALID_REQUEST'], content);
  }
  const badEncoding = await put('alpha', 'x.txt', 'x', 'latin1');
  assert.is(badEncoding.status, 400);
});

test('a 10 MiB file fits as base64 in one PUT; one byte more is 413 QUOTA_EXCEEDED', async () => {
  const max = Buffer.alloc(10 * 1024 * 1024, 7);
  const written = await put('alpha', 'big/max.bin', max.toString('base64'), 'base64');
  assert.equal([written.status, written.body.file.size], [201, max.length]);
  const over = await put('alpha', 'big/over.bin', Buffer.alloc(max.length + 1).toString('base64'), 'base64');
  assert.equal([over.status, over.body.code], [413, 'QUOTA_EXCEEDED']);
  assert.is((await vfs.call({ method: 'DELETE', url: `${PROJECTS}/alpha/file?${q('big/max.bin')}` })).status, 200);
});

test('files: sorted by path with implied directories; DELETE removes a file and its emptied directories', async () => {
  await put('alpha', 'docs/deep/er/note.md', '# note');
  const list = await vfs.call({ url: `${PROJECTS}/alpha/files` });
  assert.is(list.status, 200);
  assert.equal(list.body.files.map((f: any) => [f.path, f.type]), [
    ['bin', 'directory'], ['bin/data.bin', 'file'], ['docs', 'directory'], ['docs/deep', 'directory'], ['docs/deep/er', 'directory'],
    ['docs/deep/er/note.md', 'file'], ['docs/hello.txt', 'file'],
  ]);
  const docs = list.body.files.find((f: any) => f.path === 'docs');
  const note = list.body.files.find((f: any) => f.path === 'docs/deep/er/note.md');
  assert.is(docs.size, 0);
  assert.is(docs.mtimeMs, note.mtimeMs);

  const removed = await vfs.call({ method: 'DELETE', url: `${PROJECTS}/alpha/file?${q('docs/deep/er/note.md')}` });
  assert.equal([removed.status, removed.body], [200, { ok: true }]);
  const after = (await vfs.call({ url: `${PROJECTS}/alpha/files` })).body.files.map((f: any) => f.path);
  assert.equal(after, ['bin', 'bin/data.bin', 'docs', 'docs/hello.txt']);
  const again = await vfs.call({ method: 'DELETE', url: `${PROJECTS}/alpha/file?${q('docs/deep/er/note.md')}` });
  assert.equal([again.status, again.body.code], [404, 'FILE_NOT_FOUND']);
  const missing = await get('alpha', 'nothing.txt');
  assert.equal([missing.status, missing.body.code], [404, 'FILE_NOT_FOUND']);
  const directory = await get('alpha', 'docs');
  assert.equal([directory.status, directory.body.code], [404, 'FILE_NOT_FOUND']);
});

test('invalid paths are refused by every route with 400 INVALID_PATH, including URL-decoded query spellings', async () => {
  const before = (await vfs.call({ url: `${PROJECTS}/alpha/files` })).body;
  for (const path of ['', '../escape.txt', '/etc/passwd', 'a//b', 'a\\b', 'a%2fb', '\u2024\u2024/x', 'a\u2215b']) {
    const write = await put('alpha', path, 'x');
    assert.equal([write.status, write.body.code], [400, 'INVALID_PATH'], `PUT ${JSON.stringify(path)}`);
    const read = await get('alpha', path);
    assert.equal([read.status, read.body.code], [400, 'INVALID_PATH'], `GET ${JSON.stringify(path)}`);
    const remove = await vfs.call({ method: 'DELETE', url: `${PROJECTS}/alpha/file?${q(path)}` });
    assert.equal([remove.status, remove.body.code], [400, 'INVALID_PATH'], `DELETE ${JSON.stringify(path)}`);
  }
  // Raw query spellings: %2e%2e decodes to "..", %252e to "%2e"; both refused.
  for (const raw of ['%2e%2e%2fescape', '%252e%252e/x', '..%2f..%2fetc%2fpasswd']) {
    const read = await vfs.call({ url: `${PROJECTS}/alpha/file?path=${raw}` });
    assert.equal([read.status, read.body.code], [400, 'INVALID_PATH'], raw);
  }
  assert.equal((await vfs.call({ url: `${PROJECTS}/alpha/files` })).body, before);
});

test('a path cannot be both a file and a directory: 409 PATH_CONFLICT', async () => {
  const under = await put('alpha', 'docs/hello.txt/child.txt', 'x');
  assert.equal([under.status, under.body.code], [409, 'PATH_CONFLICT']);
  const over = await put('alpha', 'docs', 'x');
  assert.equal([over.status, over.body.code], [409, 'PATH_CONFLICT']);
  const sibling = await put('alpha', 'docs0', 'x');
  assert.is(sibling.status, 201);
});

test('projects are isolated: the same path in two projects holds different content', async () => {
  await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'beta' } });
  await put('beta', 'docs/hello.txt', 'beta content');
  assert.is((await get('alpha', 'docs/hello.txt')).body.content, 'second');
  assert.is((await get('beta', 'docs/hello.txt')).body.content, 'beta content');
  assert.equal((await vfs.call({ url: `${PROJECTS}/beta/files` })).body.files.map((f: any) => f.path), ['docs', 'docs/hello.txt']);
});

test('the vfsProjects service: list, read, write with the same rules', async () => {
  const projects = vfs.kernel.kernel.resolve(vfsProjects)!;
  await projects.assertExists('beta');
  const info = await projects.write('beta', 'src/index.ts', new TextEncoder().encode('export default 1;\n'));
  assert.equal([info.path, info.type, info.size], ['src/index.ts', 'file', 18]);
  assert.is(new TextDecoder().decode(await projects.read('beta', 'src/index.ts')), 'export default 1;\n');
  assert.equal((await projects.list('beta')).map((f) => f.path), ['docs', 'docs/hello.txt', 'src', 'src/index.ts']);
  for (const [call, status, code] of [
    [() => projects.assertExists('missing'), 404, 'PROJECT_NOT_FOUND'],
    [() => projects.read('beta', '../x'), 400, 'INVALID_PATH'],
    [() => projects.read('beta', 'nope.ts'), 404, 'FILE_NOT_FOUND'],
    [() => projects.write('beta', 'a/../../b', new Uint8Array()), 400, 'INVALID_PATH'],
  ] as const) {
    try {
      await call();
      assert.unreachable(code);
    } catch (error: any) {
      assert.equal([error.status, error.code], [status, code]);
    }
  }
});

test('DELETE project removes it with its files; a second delete is 404', async () => {
  const removed = await vfs.call({ method: 'DELETE', url: `${PROJECTS}/beta` });
  assert.equal([removed.status, removed.body], [200, { ok: true }]);
  const gone = await vfs.call({ url: `${PROJECTS}/beta/files` });
  assert.equal([gone.status, gone.body.code], [404, 'PROJECT_NOT_FOUND']);
  const again = await vfs.call({ method: 'DELETE', url: `${PROJECTS}/beta` });
  assert.equal([again.status, again.body.code], [404, 'PROJECT_NOT_FOUND']);
  const reopened = await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'beta' } });
  assert.equal([reopened.status, reopened.body.quota.fileCount], [201, 0]);
});

test('no response body of this file shows a host path', () => {
  assert.ok(vfs.seen().length > 1000);
  assert.not.ok(vfs.seen().includes(vfs.stateDir));
  assert.not.match(vfs.seen(), /plugins\/vfs|blobs\//);
});

test.run();
