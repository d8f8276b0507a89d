import { open, rename, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes a file so that a crash leaves either the old or the new content: temp file, fsync, rename. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await syncDir(dirname(path));
}

/** fsyncs a directory so a rename in it survives power loss. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try { await handle.sync(); } finally { await handle.close(); }
}
