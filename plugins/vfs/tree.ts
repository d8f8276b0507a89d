import type { VfsFileInfo } from '../../sdk/index.ts';
import type { FileRow } from './store.ts';

export interface FileVersion { size: number; hash: string; mtimeMs: number }
export interface DiffEntry { path: string; status: 'added' | 'modified' | 'deleted'; before?: FileVersion; after?: FileVersion }

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const version = (row: FileRow): FileVersion => ({ size: row.size, hash: row.hash, mtimeMs: row.mtime_ms });

/** The file's public metadata. */
export const fileInfo = (row: FileRow): VfsFileInfo => ({ path: row.path, type: 'file', size: row.size, mtimeMs: row.mtime_ms });

/**
 * Files plus the directories their paths imply (size 0, mtimeMs of the newest file below), sorted by path.
 * There are no empty directories: a directory exists while a file below it does.
 */
export function withDirectories(rows: FileRow[]): VfsFileInfo[] {
  const directories = new Map<string, number>();
  for (const row of rows) {
    for (let end = row.path.indexOf('/'); end !== -1; end = row.path.indexOf('/', end + 1)) {
      const dir = row.path.slice(0, end);
      directories.set(dir, Math.max(directories.get(dir) ?? 0, row.mtime_ms));
    }
  }
  const dirs = [...directories].map(([path, mtimeMs]): VfsFileInfo => ({ path, type: 'directory', size: 0, mtimeMs }));
  return [...rows.map(fileInfo), ...dirs].sort(byPath);
}

/**
 * What changed from `before` (a snapshot) to `after` (the current tree), by content hash: added, deleted,
 * or modified (the hash differs; a rewrite with the same bytes is no change). Sorted by path.
 */
export function diffTrees(before: FileRow[], after: FileRow[]): DiffEntry[] {
  const old = new Map(before.map((row) => [row.path, row]));
  const diff: DiffEntry[] = [];
  for (const row of after) {
    const previous = old.get(row.path);
    old.delete(row.path);
    if (!previous) diff.push({ path: row.path, status: 'added', after: version(row) });
    else if (previous.hash !== row.hash) diff.push({ path: row.path, status: 'modified', before: version(previous), after: version(row) });
  }
  for (const row of old.values()) diff.push({ path: row.path, status: 'deleted', before: version(row) });
  return diff.sort(byPath);
}
