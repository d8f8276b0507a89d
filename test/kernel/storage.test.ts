import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SqlJsDatabase } from '../../kernel/storage/sqljs-database.ts';
import { definePlugin, type SqlDatabase } from '../../sdk/index.ts';
import { createTestKernel } from '../../sdk/testing.ts';

const quiet = { level: 'error' as const, write: () => {} };
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-kernel-storage-'));
  dirs.push(dir);
  return dir;
}
const count = async (db: SqlDatabase, table = 'items') => (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;

/** Opens a database the way a restarted process would, while the previous instance is left unclosed (a crash). */
async function crashAndReopen(file: string): Promise<SqlJsDatabase> {
  return SqlJsDatabase.open(file);
}

async function fresh(): Promise<{ file: string; db: SqlJsDatabase }> {
  const file = join(tempDir(), 'db.sqlite');
  const db = await SqlJsDatabase.open(file);
  await db.run('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, data BLOB)');
  return { file, db };
}

test('ctx.storage.sql runs each migration once, across reopen and restart', async () => {
  const stateDir = tempDir();
  const migrations = [
    'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)',
    "INSERT INTO notes (text) VALUES ('seed');\nINSERT INTO notes (text) VALUES ('seed-2')",
  ];
  const plugin = (list: string[], seen: { notes?: number; migrations?: number }) => definePlugin({
    id: 'notes', version: '1',
    async setup(ctx) {
      const db = await ctx.storage.sql({ migrations: list });
      const again = await ctx.storage.sql({ migrations: list });
      assert.is(again, db, 'one database per plugin');
      seen.notes = await count(db, 'notes');
      seen.migrations = await count(db, '_svc_migrations');
    },
  });
  const first: { notes?: number; migrations?: number } = {};
  let t = await createTestKernel({ stateDir, log: quiet, plugins: [plugin(migrations, first)] });
  await t.kernel.reload('notes');
  await t.close();
  assert.equal(first, { notes: 2, migrations: 2 });

  const second: { notes?: number; migrations?: number } = {};
  t = await createTestKernel({ stateDir, log: quiet, plugins: [plugin([...migrations, "INSERT INTO notes (text) VALUES ('third')"], second)] });
  await t.close();
  assert.equal(second, { notes: 3, migrations: 3 }, 'only the new tail ran');
});

test('tx commits all statements or none', async () => {
  const { file, db } = await fresh();
  const result = await db.tx(async (tx) => {
    await tx.run('INSERT INTO items (name) VALUES (?)', ['a']);
    await tx.run('INSERT INTO items (name) VALUES (?)', ['b']);
    return (await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM items'))!.n;
  });
  assert.is(result, 2, 'the transaction sees its own writes');
  let caught: unknown;
  await db.tx(async (tx) => {
    await tx.run('INSERT INTO items (name) VALUES (?)', ['c']);
    throw new Error('abort');
  }).catch((error) => { caught = error; });
  assert.is((caught as Error).message, 'abort');
  assert.is(await count(db), 2);
  assert.equal(await db.all('SELECT name FROM items ORDER BY id'), [{ name: 'a' }, { name: 'b' }]);
  const reopened = await crashAndReopen(file);
  assert.equal(await reopened.all('SELECT name FROM items ORDER BY id'), [{ name: 'a' }, { name: 'b' }], 'the rolled-back write is not in the journal');
  await reopened.close();
});

test('run() reports changes and lastInsertRowid; a failing run changes nothing', async () => {
  const { file, db } = await fresh();
  assert.equal(await db.run('INSERT INTO items (name) VALUES (?)', ['x']), { changes: 1, lastInsertRowid: 1 });
  assert.equal(await db.run('INSERT INTO items (name) VALUES (?)', ['y']), { changes: 1, lastInsertRowid: 2 });
  assert.equal((await db.run('UPDATE items SET name = name || ?', ['!'])).changes, 2);
  let failed = false;
  await db.run('INSERT INTO items (name) VALUES (?)', ['x!']).catch(() => { failed = true; });
  assert.ok(failed, 'unique constraint');
  const reopened = await crashAndReopen(file);
  assert.equal(await reopened.all('SELECT name FROM items ORDER BY id'), [{ name: 'x!' }, { name: 'y!' }]);
  await reopened.close();
});

test('acknowledged writes survive a crash: the journal is replayed on open', async () => {
  const { file, db } = await fresh();
  for (let i = 0; i < 5; i++) await db.run('INSERT INTO items (name) VALUES (?)', [`row-${i}`]);
  await Promise.all([1, 2, 3].map((i) => db.run('INSERT INTO items (name) VALUES (?)', [`group-${i}`])));
  assert.ok(statSync(`${file}.journal`).size > 0);
  const reopened = await crashAndReopen(file);
  assert.is(await count(reopened), 8);
  assert.equal((await reopened.all<{ name: string }>('SELECT name FROM items ORDER BY id')).map((r) => r.name).slice(-3).sort(), ['group-1', 'group-2', 'group-3']);
  await reopened.close();
});

test('a torn last journal line is ignored, and later writes stay readable', async () => {
  const { file, db } = await fresh();
  await db.run('INSERT INTO items (name) VALUES (?)', ['before']);
  appendFileSync(`${file}.journal`, '{"s":99,"q":[["INSERT INTO items (name) VALUES (?)",["torn');
  const second = await crashAndReopen(file);
  assert.equal(await second.all('SELECT name FROM items'), [{ name: 'before' }]);
  // The next acknowledged write must not be glued onto the torn fragment and lost at the next crash.
  await second.run('INSERT INTO items (name) VALUES (?)', ['after']);
  const third = await crashAndReopen(file);
  assert.equal(await third.all('SELECT name FROM items ORDER BY id'), [{ name: 'before' }, { name: 'after' }]);
  await third.close();
});

test('snapshot() empties the journal and keeps the data', async () => {
  const { file, db } = await fresh();
  for (const name of ['a', 'b', 'c']) await db.run('INSERT INTO items (name) VALUES (?)', [name]);
  await db.snapshot();
  assert.is(statSync(`${file}.journal`).size, 0);
  assert.ok(statSync(file).size > 0);
  await db.run('INSERT INTO items (name) VALUES (?)', ['d']);
  const reopened = await crashAndReopen(file);
  assert.equal((await reopened.all<{ name: string }>('SELECT name FROM items ORDER BY id')).map((r) => r.name), ['a', 'b', 'c', 'd']);
  await reopened.close();
});

test('a snapshot renamed in while the journal was not truncated does not apply entries twice', async () => {
  const { file, db } = await fresh();
  await db.run('CREATE TABLE log (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT)');
  for (const name of ['a', 'b', 'c']) await db.run('INSERT INTO log (name) VALUES (?)', [name]);
  const oldJournal = readFileSync(`${file}.journal`, 'utf8');
  assert.is(oldJournal.trim().split('\n').length, 5);
  await db.snapshot();
  // Simulate a crash between the snapshot's rename and the journal truncation.
  writeFileSync(`${file}.journal`, oldJournal);
  const reopened = await crashAndReopen(file);
  assert.is(await count(reopened, 'log'), 3);
  // Entries newer than the snapshot are still applied after the stale ones.
  await reopened.run('INSERT INTO log (name) VALUES (?)', ['d']);
  const again = await crashAndReopen(file);
  assert.equal((await again.all<{ name: string }>('SELECT name FROM log ORDER BY id')).map((r) => r.name), ['a', 'b', 'c', 'd']);
  await again.close();
});

test('blobs round-trip through journal replay and snapshot', async () => {
  const { file, db } = await fresh();
  const bytes = new Uint8Array([0, 1, 2, 250, 255, 0, 128]);
  await db.run('INSERT INTO items (name, data) VALUES (?, ?)', ['u8', bytes]);
  await db.run('INSERT INTO items (name, data) VALUES (?, ?)', ['buffer', Buffer.from('héllo')]);
  await db.tx(async (tx) => { await tx.run('INSERT INTO items (name, data) VALUES (?, ?)', ['tx', new Uint8Array(300).fill(7)]); });
  const check = async (store: SqlDatabase) => {
    const rows = await store.all<{ name: string; data: Uint8Array }>('SELECT name, data FROM items ORDER BY id');
    assert.equal(rows.map((r) => r.name), ['u8', 'buffer', 'tx']);
    for (const row of rows) assert.instance(row.data, Uint8Array);
    assert.equal([...rows[0]!.data], [...bytes]);
    assert.is(Buffer.from(rows[1]!.data).toString(), 'héllo');
    assert.is(rows[2]!.data.length, 300);
    assert.ok(rows[2]!.data.every((b) => b === 7));
  };
  const replayed = await crashAndReopen(file);
  await check(replayed);
  await replayed.close();
  const fromSnapshot = await SqlJsDatabase.open(file);
  assert.is(statSync(`${file}.journal`).size, 0);
  await check(fromSnapshot);
  await fromSnapshot.close();
});

test('a committed transaction that caught a failing statement replays cleanly', async () => {
  const { file, db } = await fresh();
  await db.tx(async (tx) => {
    await tx.run('INSERT INTO items (name) VALUES (?)', ['one']);
    await tx.run('INSERT INTO items (name) VALUES (?)', ['one']).catch(() => undefined);
    await tx.run('INSERT INTO items (name) VALUES (?)', ['two']);
  });
  assert.is(await count(db), 2);
  const reopened = await crashAndReopen(file);
  assert.equal((await reopened.all<{ name: string }>('SELECT name FROM items ORDER BY id')).map((r) => r.name), ['one', 'two']);
  await reopened.close();
});

test('close() snapshots; reopening after a clean close needs no journal', async () => {
  const { file, db } = await fresh();
  await db.run('INSERT INTO items (name) VALUES (?)', ['kept']);
  await db.close();
  assert.is(statSync(`${file}.journal`).size, 0);
  const reopened = await SqlJsDatabase.open(file);
  assert.equal(await reopened.all('SELECT name FROM items'), [{ name: 'kept' }]);
  await reopened.close();
});

test.after(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });

test.run();
