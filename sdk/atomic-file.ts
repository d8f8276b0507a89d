import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes a file so that a crash leaves either the old or the new content: temp file, fsync, rename,
 * directory fsync. Directories it had to create are made durable too.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  const created = await mkdir(dir, { recursive: true });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'w', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDir(dir);
  // Each new directory's entry lives in its parent: sync those parents up to the one that existed before.
  if (created) for (let d = dir; d !== dirname(created); d = dirname(d)) await syncDir(dirname(d));
}

/** fsyncs a directory so a rename in it survives power loss. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try { await handle.sync(); } finally { await handle.close(); }
}
