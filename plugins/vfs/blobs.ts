import { createHash } from 'node:crypto';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpError, writeFileAtomic, type Logger } from '../../sdk/index.ts';
import { keyedQueue } from './keyed-queue.ts';

const HASH = /^[0-9a-f]{64}$/;

/** SHA-256 of the content, hex: a blob's name. */
export const hashOf = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

/**
 * Content-addressed file contents under `root` (`ab/cdef…` by SHA-256), each written once (temp, fsync,
 * rename, directory fsync) and shared by every file and snapshot with that content. A blob being written
 * for a transaction not yet committed is pinned so that a concurrent collection cannot remove it; pinning
 * and collection of one hash are serialized. Host errors never reach clients with their paths.
 */
export function createBlobStore(root: string, log: Logger) {
  const pins = new Map<string, number>();
  const byHash = keyedQueue();
  const fileOf = (hash: string) => join(root, hash.slice(0, 2), hash.slice(2));

  /** Logs the host error and answers with a message that names no host path. */
  function hostFailure(action: string, error: unknown): HttpError {
    log.error(`VFS blob ${action} failed`, { error, tags: ['vfs'] });
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOSPC' || code === 'EDQUOT'
      ? new HttpError(507, 'INSUFFICIENT_STORAGE', 'The server is out of storage space')
      : new HttpError(500, 'INTERNAL_ERROR', `Could not ${action} file content`);
  }

  async function writeOnce(hash: string, data: Uint8Array): Promise<void> {
    const file = fileOf(hash);
    if (!(await exists(file))) await writeFileAtomic(file, data);
  }

  return {
    /**
     * Makes sure the blob for `data` exists and pins it until the returned release is called (after the
     * transaction that references it has committed or failed).
     */
    async hold(hash: string, data: Uint8Array): Promise<() => void> {
      pins.set(hash, (pins.get(hash) ?? 0) + 1);
      const release = () => {
        const left = pins.get(hash)! - 1;
        if (left) pins.set(hash, left); else pins.delete(hash);
      };
      try {
        await byHash(hash, () => writeOnce(hash, data));
      } catch (error) {
        release();
        throw hostFailure('store', error);
      }
      return release;
    },

    async read(hash: string): Promise<Uint8Array> {
      try { return await readFile(fileOf(hash)); } catch (error) { throw hostFailure('read', error); }
    },

    /** Removes those of `hashes` that are neither pinned nor `referenced`; returns how many were removed. */
    async collect(hashes: Iterable<string>, referenced: (hash: string) => Promise<boolean>): Promise<number> {
      let removed = 0;
      for (const hash of new Set(hashes)) {
        await byHash(hash, async () => {
          if (pins.has(hash) || await referenced(hash)) return;
          try {
            await unlink(fileOf(hash));
            removed++;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('VFS blob removal failed', { error, tags: ['vfs'] });
          }
        });
      }
      return removed;
    },

    /**
     * Startup clean-up of what a crash can leave: temp files, and blobs written for a transaction that
     * never committed or whose last reference was dropped just before the crash.
     */
    async sweep(referenced: Set<string>): Promise<number> {
      let removed = 0;
      for (const shard of await listDir(root)) {
        for (const name of await listDir(join(root, shard))) {
          const hash = shard + name;
          if (HASH.test(hash) && referenced.has(hash)) continue;
          await unlink(join(root, shard, name)).then(() => removed++, () => undefined);
        }
      }
      return removed;
    },
  };
}
export type BlobStore = ReturnType<typeof createBlobStore>;

async function exists(file: string): Promise<boolean> {
  try { return (await stat(file)).isFile(); } catch { return false; }
}

async function listDir(dir: string): Promise<string[]> {
  try { return await readdir(dir); } catch { return []; }
}

