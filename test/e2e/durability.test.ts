// Durability end to end: a 2xx from a storage-backed route means the write survives SIGKILL.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { postJson, start, stateDir, stop, stopAll } from './_helpers.ts';

const PLUGIN = ['--plugin', 'test/fixtures/counter-plugin.ts'];
interface Item { id: number; text: string }

test.after(async () => { await stopAll(); });

const dir = stateDir();
/** Every item written and acknowledged so far, across restarts. */
const acknowledged = new Map<number, string>();
let server: SpawnedServer | undefined;

const boot = async () => (server = await start({ stateDir: dir, args: PLUGIN }));
const items = async (s: SpawnedServer) => {
  const res = await fetch(`${s.url}/api/counter/items`);
  assert.is(res.status, 200);
  return ((await res.json()) as { items: Item[] }).items;
};
const add = async (s: SpawnedServer, text: string) => {
  const res = await postJson(`${s.url}/api/counter/items`, { text });
  assert.is(res.status, 201, `POST ${text}`);
  const { id } = (await res.json()) as { id: number };
  assert.type(id, 'number');
  acknowledged.set(id, text);
  return id;
};
const assertAllPresent = (list: Item[]) => {
  const stored = new Map(list.map((i) => [i.id, i.text]));
  assert.is(stored.size, list.length, 'ids are unique');
  for (const [id, text] of acknowledged) assert.is(stored.get(id), text, `item ${id} (${text}) survived`);
  assert.is(list.length, acknowledged.size, 'nothing unexpected appeared');
};

test('sequential writes survive SIGKILL right after the last 2xx', async () => {
  await boot();
  assert.equal(await items(server!), [], 'fresh state dir starts empty');
  const ids: number[] = [];
  for (let i = 0; i < 10; i++) ids.push(await add(server!, `sequential-${i}`));
  assert.equal(ids, [...ids].sort((a, b) => a - b), 'ids increase');
  await server!.kill();
  await boot();
  const list = await items(server!);
  assertAllPresent(list);
  assert.equal(list.map((i) => i.text), Array.from({ length: 10 }, (_, i) => `sequential-${i}`));
});

test('a burst of 50 concurrent writes survives SIGKILL right after all resolve', async () => {
  const s = server ?? await boot();
  const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => add(s, `burst-${i}`)));
  assert.is(new Set(ids).size, 50, '50 distinct ids');
  await s.kill();
  await boot();
  const list = await items(server!);
  assertAllPresent(list);
  assert.is(list.filter((i) => i.text.startsWith('burst-')).length, 50);
});

test('a graceful stop (SIGTERM) keeps everything, and ids continue after restart', async () => {
  const s = server ?? await boot();
  await add(s, 'before-graceful-stop');
  const code = await s.stop();
  assert.is(code, 0, 'clean exit on SIGTERM');
  await boot();
  const list = await items(server!);
  assertAllPresent(list);
  const maxId = Math.max(...list.map((i) => i.id));
  const next = await add(server!, 'after-restart');
  assert.ok(next > maxId, 'a new id beyond every stored one');
  assertAllPresent(await items(server!));
  await stop(server!);
});

test.run();
