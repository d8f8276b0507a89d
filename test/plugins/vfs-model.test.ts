// VFS snapshots against a plain model: a seeded random sequence of writes, deletes, snapshots (with pruning)
// and rollbacks, checking after each step that the current tree, every kept snapshot (through diff), the
// quota and the set of blobs on disk are exactly what the model says; once across a kernel restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECTS, q, startVfs, type VfsKernel } from './vfs-helpers.ts';

const MAX_SNAPSHOTS = 3;
const PATHS = ['a.txt', 'b.txt', 'c/d.txt', 'c/e.txt', 'f/g/h.txt', 'i.txt'];
const CONTENTS = ['one', 'two', 'three', 'four!', 'five five'];
const P = `${PROJECTS}/model`;

type Tree = Map<string, string>;
interface ModelSnapshot { id: string; tree: Tree }

/** mulberry32: a small seeded generator, so a failure replays. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let vfs: VfsKernel;
test.before(async () => { vfs = await startVfs({ config: { maxSnapshots: MAX_SNAPSHOTS } }); });
test.after(() => vfs.close());

test('200 random operations agree with the model', async () => {
  const next = random(20_251_123);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  let current: Tree = new Map();
  let snapshots: ModelSnapshot[] = [];
  const prune = (spare?: string) => {
    const kept = snapshots.filter((s) => s.id !== spare).slice(-MAX_SNAPSHOTS);
    snapshots = snapshots.filter((s) => s.id === spare || kept.includes(s));
  };
  const snapshot = async (): Promise<void> => {
    const response = await vfs.call({ method: 'POST', url: `${P}/snapshots`, body: {} });
    assert.is(response.status, 201);
    snapshots.push({ id: response.body.snapshot.id, tree: new Map(current) });
    prune();
  };

  const check = async (step: number, thorough: boolean) => {
    const where = `step ${step}`;
    const files = (await vfs.call({ url: `${P}/files` })).body.files.filter((f: any) => f.type === 'file');
    assert.equal(files.map((f: any) => f.path), [...current.keys()].sort(), where);
    const quota = (await vfs.call({ url: `${P}/quota` })).body.quota;
    assert.equal([quota.usedBytes, quota.fileCount], [[...current.values()].reduce((n, c) => n + c.length, 0), current.size], where);
    const listed = (await vfs.call({ url: `${P}/snapshots` })).body.snapshots.map((s: any) => s.id);
    assert.equal(listed, snapshots.map((s) => s.id).reverse(), where);
    const distinct = new Set([...current.values(), ...snapshots.flatMap((s) => [...s.tree.values()])]);
    assert.is(vfs.blobCount(), distinct.size, `${where}: blobs on disk`);
    if (!thorough) return;
    for (const [path, content] of current) assert.is((await vfs.call({ url: `${P}/file?${q(path)}` })).body.content, content, `${where}: ${path}`);
    for (const { id, tree } of snapshots) {
      const expected = [...new Set([...tree.keys(), ...current.keys()])].sort().flatMap((path) => {
        const [before, after] = [tree.get(path), current.get(path)];
        if (before === after) return [];
        return [[path, before === undefined ? 'added' : after === undefined ? 'deleted' : 'modified']];
      });
      const diff = (await vfs.call({ url: `${P}/diff?snapshotId=${id}` })).body.diff;
      assert.equal(diff.map((d: any) => [d.path, d.status]), expected, `${where}: diff against ${id}`);
    }
  };

  await vfs.call({ method: 'POST', url: PROJECTS, body: { projectId: 'model' } });
  for (let step = 1; step <= 200; step++) {
    const roll = next();
    if (roll < 0.45) {
      const [path, content] = [pick(PATHS), pick(CONTENTS)];
      assert.ok([200, 201].includes((await vfs.call({ method: 'PUT', url: `${P}/file`, body: { path, content } })).status));
      current.set(path, content);
    } else if (roll < 0.6 && current.size) {
      const path = pick([...current.keys()]);
      assert.is((await vfs.call({ method: 'DELETE', url: `${P}/file?${q(path)}` })).status, 200);
      current.delete(path);
    } else if (roll < 0.85 || !snapshots.length) {
      await snapshot();
    } else {
      const target = pick(snapshots);
      const response = await vfs.call({ method: 'POST', url: `${P}/rollback`, body: { snapshotId: target.id } });
      assert.is(response.status, 200);
      snapshots.push({ id: response.body.rollback.previousSnapshotId, tree: current });
      current = new Map(target.tree);
      prune(target.id);
    }
    if (step === 100) await vfs.restart();
    await check(step, step % 10 === 0);
  }
});

test.run();
