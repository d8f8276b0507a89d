import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { errors, type Logger, type PromotionSource, type SqlDatabase, type SqlOptions, type VfsFileInfo, type VfsProjects } from '../../sdk/index.ts';
import { createBlobStore, hashOf, type BlobStore } from './blobs.ts';
import { utf8OrUndefined } from './encoding.ts';
import { keyedQueue } from './keyed-queue.ts';
import { assertProjectId, validatePath } from './paths.ts';
import { createVfsStore, migrations, type FileRow, type ProjectRow, type SnapshotRow, type Sql, type VfsStore } from './store.ts';
import { diffTrees, fileInfo, withDirectories, type DiffEntry } from './tree.ts';

export interface VfsLimits { quotaBytes: number; maxFileBytes: number; maxFiles: number; maxProjects: number; maxSnapshots: number }
export interface Quota { usedBytes: number; fileCount: number; quotaBytes: number; maxFileBytes: number; maxFiles: number }
export interface Snapshot { id: string; projectId: string; createdAt: string; fileCount: number; note?: string }
export interface Rollback { snapshotId: string; projectId: string; rolledBackAt: string; previousSnapshotId: string }

const iso = (ms: number) => new Date(ms).toISOString();
const toSnapshot = (row: SnapshotRow): Snapshot =>
  ({ id: row.id, projectId: row.project_id, createdAt: iso(row.created_at), fileCount: row.file_count, ...(row.note !== null && { note: row.note }) });
const overQuota = (message: string) => errors.tooLarge(message, 'QUOTA_EXCEEDED');
const fileNotFound = (path: string) => errors.notFound(`File not found: ${path}`, 'FILE_NOT_FOUND');

/** Opens the VFS on a plugin's storage (its SQL database and its directory), removing blobs a crash left behind. */
export async function openVfs(storage: { sql(options: SqlOptions): Promise<SqlDatabase>; readonly dir: string }, limits: VfsLimits, log: Logger): Promise<Vfs> {
  const store = createVfsStore(await storage.sql({ migrations }));
  const blobs = createBlobStore(join(storage.dir, 'blobs'), log);
  await blobs.sweep(await store.allHashes());
  return createVfs(store, blobs, limits);
}

/**
 * Isolated projects of virtual files. Every operation on a project runs in that project's queue, so quota
 * totals (kept in the project row, changed in the same transaction as the files) stay exact and a blob is
 * never collected while an operation of its project is about to read it. File data is written before the
 * rows that reference it; blobs whose last reference goes are collected after the commit.
 */
export function createVfs(store: VfsStore, blobs: BlobStore, limits: VfsLimits) {
  const serial = keyedQueue();
  const collect = (hashes: Iterable<string>) => blobs.collect(hashes, store.referenced);

  async function projectRow(projectId: string): Promise<ProjectRow> {
    const row = await store.project(projectId);
    if (!row) throw errors.notFound(`Project not found: ${projectId}`, 'PROJECT_NOT_FOUND');
    return row;
  }
  /** Runs `task` in the project's queue once the project is known to exist. */
  function inProject<T>(projectId: string, task: (project: ProjectRow) => Promise<T>): Promise<T> {
    assertProjectId(projectId);
    return serial(projectId, async () => task(await projectRow(projectId)));
  }
  async function snapshotRow(projectId: string, snapshotId: string): Promise<SnapshotRow> {
    const row = await store.snapshot(projectId, snapshotId);
    if (!row) throw errors.notFound(`Snapshot not found: ${snapshotId}`, 'SNAPSHOT_NOT_FOUND');
    return row;
  }
  const quotaOf = (row: ProjectRow): Quota => ({
    usedBytes: row.used_bytes, fileCount: row.file_count, quotaBytes: limits.quotaBytes, maxFileBytes: limits.maxFileBytes, maxFiles: limits.maxFiles,
  });

  /** Refuses a write that would break a quota or make one path both a file and a directory. */
  async function checkWrite(project: ProjectRow, path: string, size: number, old: FileRow | undefined): Promise<void> {
    if (size > limits.maxFileBytes) throw overQuota(`The file is ${size} bytes; at most ${limits.maxFileBytes} bytes per file`);
    if (!old) {
      if (project.file_count + 1 > limits.maxFiles) throw overQuota(`The project already has ${project.file_count} files; at most ${limits.maxFiles}`);
      const clash = await store.typeConflict(project.id, path);
      if (clash) throw errors.conflict(`"${path}" cannot be both a file and a directory: "${clash}" exists`, 'PATH_CONFLICT');
    }
    const used = project.used_bytes - (old?.size ?? 0) + size;
    if (used > limits.quotaBytes) throw overQuota(`The project would use ${used} bytes; its quota is ${limits.quotaBytes} bytes`);
  }

  /** Takes a snapshot inside `tx` and prunes the oldest beyond the limit (never `spare`); returns it and the hashes pruning released. */
  async function snapshotIn(tx: Sql, projectId: string, note: string | undefined, spare = -1) {
    const row = await store.insertSnapshot(tx, projectId, randomUUID(), Date.now(), note);
    return { row, released: await store.pruneSnapshots(tx, projectId, limits.maxSnapshots, spare) };
  }

  const vfs = {
    /** Creates the project unless it exists; 413 QUOTA_EXCEEDED beyond the project limit. */
    async open(projectId: string): Promise<{ created: boolean; quota: Quota }> {
      assertProjectId(projectId);
      return serial(projectId, async () => {
        const created = await store.tx(async (tx) => {
          if (await store.project(projectId, tx)) return false;
          if (await store.countProjects(tx) >= limits.maxProjects) throw overQuota(`There are already ${limits.maxProjects} projects, the maximum`);
          await store.insertProject(tx, projectId, Date.now());
          return true;
        });
        return { created, quota: quotaOf(await projectRow(projectId)) };
      });
    },

    /** Deletes the project with its files and snapshots, and collects the blobs nothing else references. */
    remove: (projectId: string) => inProject(projectId, async () => {
      await collect(await store.tx((tx) => store.deleteProject(tx, projectId)));
    }),

    quota: (projectId: string) => inProject(projectId, async (project) => quotaOf(project)),

    list: (projectId: string) => inProject(projectId, async () => withDirectories(await store.files(projectId))),

    read(projectId: string, path: string): Promise<Uint8Array> {
      validatePath(path);
      return inProject(projectId, async () => {
        const row = await store.file(projectId, path);
        if (!row) throw fileNotFound(path);
        return blobs.read(row.hash);
      });
    },

    /** Creates or replaces a file; durable when resolved. `created` tells which. */
    write(projectId: string, path: string, data: Uint8Array): Promise<{ file: VfsFileInfo; created: boolean }> {
      validatePath(path);
      return inProject(projectId, async (project) => {
        const old = await store.file(projectId, path);
        await checkWrite(project, path, data.byteLength, old);
        const row: FileRow = { path, hash: hashOf(data), size: data.byteLength, mtime_ms: Date.now() };
        const release = await blobs.hold(row.hash, data);
        let replaced: string | undefined;
        try {
          replaced = await store.tx((tx) => store.putFile(tx, projectId, row));
        } catch (error) {
          release();
          await collect([row.hash]);
          throw error;
        }
        release();
        if (replaced && replaced !== row.hash) await collect([replaced]);
        return { file: fileInfo(row), created: !old };
      });
    },

    deleteFile(projectId: string, path: string): Promise<void> {
      validatePath(path);
      return inProject(projectId, async () => {
        const old = await store.file(projectId, path);
        if (!old) throw fileNotFound(path);
        const released = await store.tx((tx) => store.deleteFile(tx, projectId, path));
        if (released) await collect([released]);
      });
    },

    /** Newest first. */
    snapshots: (projectId: string) => inProject(projectId, async () => (await store.snapshots(projectId)).map(toSnapshot)),

    snapshot: (projectId: string, snapshotId: string) => inProject(projectId, async () => toSnapshot(await snapshotRow(projectId, snapshotId))),

    /**
     * Records the project's current tree: one row whatever the tree's size (see store.ts), no file data;
     * prunes the oldest snapshots beyond the limit. A plain function for benchmarks: `await vfs.takeSnapshot(id)`.
     */
    takeSnapshot: (projectId: string, note?: string) => inProject(projectId, async () => {
      const { row, released } = await store.tx((tx) => snapshotIn(tx, projectId, note));
      await collect(released);
      return toSnapshot(row);
    }),

    /** The current tree compared with a snapshot's: `before` is the snapshot's version, `after` the current one. */
    diff: (projectId: string, snapshotId: string): Promise<DiffEntry[]> => inProject(projectId, async () => {
      const snapshot = await snapshotRow(projectId, snapshotId);
      return diffTrees(await store.snapshotFiles(snapshot), await store.files(projectId));
    }),

    /** Snapshots the current tree (`previousSnapshotId`), then makes the snapshot's tree current, in one transaction. */
    rollback: (projectId: string, snapshotId: string): Promise<Rollback> => inProject(projectId, async () => {
      const target = await snapshotRow(projectId, snapshotId);
      const { row, released } = await store.tx(async (tx) => {
        const taken = await snapshotIn(tx, projectId, `Before rollback to ${snapshotId}`, target.seq);
        await store.restoreSnapshot(tx, projectId, target);
        return taken;
      });
      await collect(released);
      return { snapshotId, projectId, rolledBackAt: iso(row.created_at), previousSnapshotId: row.id };
    }),

    /** A snapshot's files for the cloud: text as utf-8 when it is valid UTF-8, anything else as base64. */
    promotionSource: (projectId: string, snapshotId: string): Promise<PromotionSource> => inProject(projectId, async () => {
      const snapshot = await snapshotRow(projectId, snapshotId);
      const files: PromotionSource['files'] = [];
      for (const row of await store.snapshotFiles(snapshot)) {
        const data = await blobs.read(row.hash);
        const text = utf8OrUndefined(data);
        files.push(text === undefined ? { path: row.path, contents: Buffer.from(data).toString('base64'), encoding: 'base64' } : { path: row.path, contents: text, encoding: 'utf-8' });
      }
      return { sourceKind: 'vfs-snapshot', projectId, snapshotId, files };
    }),
  };

  /** The `vfsProjects` service other plugins (compile, load) use. */
  const projects: VfsProjects = {
    assertExists: async (projectId) => { await vfs.quota(projectId); },
    list: vfs.list,
    read: vfs.read,
    write: async (projectId, path, data) => (await vfs.write(projectId, path, data)).file,
  };
  return { ...vfs, projects };
}
export type Vfs = ReturnType<typeof createVfs>;
