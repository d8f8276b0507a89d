import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { edit, scratchCopy } from '../../examples/notes-plugin/hot-reload.ts';
import { noteCreated, notesService, type Note } from '../../examples/notes-plugin/index.ts';
import { coreKernel, definePlugin } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import type { KernelOptions } from '../../kernel/index.ts';

const entry = fileURLToPath(new URL('../../examples/notes-plugin/index.ts', import.meta.url));

/** A test kernel with the notes plugin imported from disk the way a third-party plugin is; always stopped. */
async function withNotes(options: KernelOptions, run: (t: TestKernel) => Promise<void>, file = entry): Promise<void> {
  const t = await createTestKernel(options);
  try {
    const info = await t.kernel.importPlugin(file);
    assert.is(info.state, 'active', info.error);
    await run(t);
  } finally {
    await t.close();
  }
}

const create = (t: TestKernel, text: unknown) => t.inject({ method: 'POST', url: '/api/notes', body: { text } });

test('create, list, get and delete notes', () => withNotes({}, async (t) => {
  const created = await create(t, 'first');
  assert.is(created.status, 201);
  const note = created.body.note as Note;
  assert.is(note.text, 'first');
  assert.match(note.id, /^[0-9a-f-]{36}$/);
  assert.ok(!Number.isNaN(Date.parse(note.createdAt)));
  await create(t, 'second');

  const list = await t.inject({ url: '/api/notes' });
  assert.is(list.status, 200);
  assert.equal(list.body.notes.map((n: Note) => n.text), ['first', 'second']);

  const one = await t.inject({ url: `/api/notes/${note.id}` });
  assert.is(one.status, 200);
  assert.equal(one.body, { note });

  assert.is((await t.inject({ method: 'DELETE', url: `/api/notes/${note.id}` })).status, 204);
  const gone = await t.inject({ url: `/api/notes/${note.id}` });
  assert.is(gone.status, 404);
  assert.equal(gone.body, { error: `Note ${note.id} not found`, code: 'NOT_FOUND' });
  assert.is((await t.inject({ method: 'DELETE', url: `/api/notes/${note.id}` })).status, 404);
  assert.equal((await t.inject({ url: '/api/notes' })).body.notes.map((n: Note) => n.text), ['second']);
}));

test('empty, missing and over-long text is 400; the limit defaults to 2000', () => withNotes({}, async (t) => {
  const empty = await create(t, '');
  assert.is(empty.status, 400);
  assert.is(empty.body.code, 'INVALID_REQUEST');
  assert.match(empty.body.error, /text/);
  assert.is((await t.inject({ method: 'POST', url: '/api/notes', body: {} })).status, 400);
  assert.is((await create(t, 'x'.repeat(2001))).status, 400);
  assert.is((await create(t, 'x'.repeat(2000))).status, 201);
  assert.is((await t.inject({ url: '/api/notes/stats' })).body.total, 1, 'rejected notes were not stored');
}));

test('maxLength comes from the plugin config', () => withNotes({ config: { notes: { maxLength: 5 } } }, async (t) => {
  assert.is((await create(t, 'sixsix')).status, 400);
  assert.is((await create(t, 'five5')).status, 201);
}));

test('notes.note.created reaches the plugin counter and other plugins; the service is reachable by token', () => withNotes({}, async (t) => {
  const seen: string[] = [];
  await t.kernel.load(definePlugin({ id: 'notes-watcher', version: '1.0.0', setup: (ctx) => ctx.on(noteCreated, (n) => { seen.push(n.text); }) }));
  await create(t, 'over http');
  await t.kernel.resolve(notesService)!.create('through the service');
  assert.equal(seen, ['over http', 'through the service']);
  const stats = await t.inject({ url: '/api/notes/stats' });
  assert.equal(stats.body, { version: '0.1.0', total: 2, createdSinceLoad: 2 });
}));

test('notes survive stopping the kernel and starting a new one on the same state dir', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-notes-test-'));
  try {
    await withNotes({ stateDir }, async (t) => { assert.is((await create(t, 'durable')).status, 201); });
    await withNotes({ stateDir }, async (t) => {
      assert.equal((await t.inject({ url: '/api/notes' })).body.notes.map((n: Note) => n.text), ['durable']);
      assert.is((await t.inject({ url: '/api/notes/stats' })).body.createdSinceLoad, 0, 'the counter belongs to the loaded instance');
    });
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('hot reload: an edited copy is served after importPlugin again, once, with its data', async () => {
  const copy = await scratchCopy();
  try {
    await withNotes({}, async (t) => {
      const { note } = (await create(t, 'kept')).body as { note: Note };
      const before = t.kernel.owned('notes');
      assert.is((await t.inject({ url: '/api/notes/stats' })).body.version, '0.1.0');
      assert.is((await t.inject({ url: '/api/notes/missing' })).body.error, 'Note missing not found');

      await edit(join(copy.dir, 'service.ts'), "NOTES_VERSION = '0.1.0'", "NOTES_VERSION = '0.2.0'");
      await edit(join(copy.dir, 'routes.ts'), '`Note ${params.id} not found`', '`No note with id ${params.id}`');
      const info = await t.kernel.importPlugin(copy.entry);

      assert.is(info.state, 'active');
      assert.is((await t.inject({ url: '/api/notes/stats' })).body.version, '0.2.0');
      assert.is((await t.inject({ url: '/api/notes/missing' })).body.error, 'No note with id missing');
      assert.equal((await t.inject({ url: `/api/notes/${note.id}` })).body, { note });
      assert.equal(t.kernel.plugins().filter((p) => p.id === 'notes').map((p) => [p.state, p.version]), [['active', '0.2.0']]);
      assert.equal(t.kernel.owned('notes'), before, 'the old instance left nothing behind');
      const paths = t.kernel.resolve(coreKernel)!.routes().filter((r) => r.pluginId === 'notes').map((r) => `${r.method} ${r.path}`);
      assert.is(paths.length, 5);
      assert.is(new Set(paths).size, 5);
    }, copy.entry);
  } finally {
    await copy.remove();
  }
});

test('after unload the kernel holds nothing owned by notes', () => withNotes({}, async (t) => {
  await create(t, 'x');
  const loaded = t.kernel.owned('notes');
  assert.equal({ routes: loaded.routes, listeners: loaded.listeners, services: loaded.services }, { routes: 5, listeners: 1, services: 1 });
  assert.ok(loaded.disposables > 0);

  assert.equal(await t.kernel.unload('notes'), ['notes']);
  assert.equal(t.kernel.owned('notes'), { routes: 0, listeners: 0, timers: 0, wsHandlers: 0, services: 0, disposables: 0 });
  assert.is(t.kernel.resolve(notesService), undefined);
  assert.is((await t.inject({ url: '/api/notes' })).status, 404);
}));

test.run();
