import type { SqlDatabase } from '../../sdk/index.ts';

/**
 * Trees are versioned rows. A row (path → blob hash, size, mtime) of a project is visible in snapshot `s`
 * of that project iff `after < s` and (`upto` is NULL or `s <= upto`); the current tree is the rows whose
 * `upto` is NULL. Snapshot sequence numbers only grow, so taking a snapshot copies no rows: it records the
 * next number as the project's `last_snapshot`. A change to a row some snapshot has seen (`after <
 * last_snapshot`) closes it (`upto = last_snapshot`) and adds a new row; an unseen row changes in place.
 */
export const migrations = [
  `CREATE TABLE projects (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, used_bytes INTEGER NOT NULL, file_count INTEGER NOT NULL,
     last_snapshot INTEGER NOT NULL DEFAULT 0);
   CREATE TABLE entries (id INTEGER PRIMARY KEY, project_id TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL,
     mtime_ms INTEGER NOT NULL, after INTEGER NOT NULL, upto INTEGER);
   CREATE UNIQUE INDEX entries_current ON entries (project_id, path) WHERE upto IS NULL;
   CREATE INDEX entries_project ON entries (project_id, after);
   CREATE INDEX entries_hash ON entries (hash);
   CREATE TABLE snapshots (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL, created_at INTEGER NOT NULL,
     file_count INTEGER NOT NULL, total_bytes INTEGER NOT NULL, note TEXT);
   CREATE INDEX snapshots_project ON snapshots (project_id, seq)`,
];

export interface ProjectRow { id: string; created_at: number; used_bytes: number; file_count: number; last_snapshot: number }
export interface FileRow { path: string; hash: string; size: number; mtime_ms: number }
interface EntryRow extends FileRow { id: number; after: number }
export interface SnapshotRow { seq: number; id: string; project_id: string; created_at: number; file_count: number; total_bytes: number; note: string | null }

/** A transaction's handle. */
export type Sql = Omit<SqlDatabase, 'tx'>;
const FILE = 'path, hash, size, mtime_ms';
const SNAPSHOT = 'seq, id, project_id, created_at, file_count, total_bytes, note';
const hashes = (rows: { hash: string }[]) => rows.map((row) => row.hash);

/** The VFS in SQL: projects with their running totals, versioned tree rows, snapshots. Write helpers take the transaction handle. */
export function createVfsStore(db: SqlDatabase) {
  /** `on`: the transaction handle when called inside one (the database itself would wait for the transaction). */
  const project = (id: string, on: Sql = db) => on.get<ProjectRow>('SELECT * FROM projects WHERE id = ?', [id]);
  const current = (on: Sql, projectId: string, path: string) =>
    on.get<EntryRow>(`SELECT id, after, ${FILE} FROM entries WHERE project_id = ? AND path = ? AND upto IS NULL`, [projectId, path]);

  /**
   * Ends the current row of `path` for the tree: closed when a snapshot has seen it, deleted otherwise.
   * Returns the hash a deleted row referenced (a garbage candidate).
   */
  async function retire(tx: Sql, entry: EntryRow, lastSnapshot: number): Promise<string | undefined> {
    if (entry.after < lastSnapshot) {
      await tx.run('UPDATE entries SET upto = ? WHERE id = ?', [lastSnapshot, entry.id]);
      return undefined;
    }
    await tx.run('DELETE FROM entries WHERE id = ?', [entry.id]);
    return entry.hash;
  }

  return {
    tx: <T>(fn: (tx: Sql) => Promise<T>) => db.tx(fn),
    project,
    countProjects: async (tx: Sql) => (await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM projects'))!.n,
    insertProject: (tx: Sql, id: string, now: number) => tx.run('INSERT INTO projects (id, created_at, used_bytes, file_count) VALUES (?, ?, 0, 0)', [id, now]),
    /** Deletes the project, its rows and snapshots; returns every blob hash they referenced. */
    async deleteProject(tx: Sql, id: string): Promise<string[]> {
      const referenced = await tx.all<{ hash: string }>('SELECT DISTINCT hash FROM entries WHERE project_id = ?', [id]);
      await tx.run('DELETE FROM entries WHERE project_id = ?', [id]);
      await tx.run('DELETE FROM snapshots WHERE project_id = ?', [id]);
      await tx.run('DELETE FROM projects WHERE id = ?', [id]);
      return hashes(referenced);
    },

    files: (projectId: string) => db.all<FileRow>(`SELECT ${FILE} FROM entries WHERE project_id = ? AND upto IS NULL ORDER BY path`, [projectId]),
    file: (projectId: string, path: string): Promise<FileRow | undefined> => current(db, projectId, path),
    /** A file at a proper prefix of `path` (`a` for `a/b`), or any file below `path` (`path/…`): it cannot be both file and directory. */
    async typeConflict(projectId: string, path: string): Promise<string | undefined> {
      const segments = path.split('/');
      const ancestors = segments.slice(1).map((_, i) => segments.slice(0, i + 1).join('/'));
      const row = await db.get<{ path: string }>(
        `SELECT path FROM entries WHERE project_id = ? AND upto IS NULL AND (path IN (${ancestors.map(() => '?').join(',') || 'NULL'}) OR (path >= ? AND path < ?)) LIMIT 1`,
        [projectId, ...ancestors, `${path}/`, `${path}0`], // '0' follows '/' in code-point order: the range is exactly `path/…`
      );
      return row?.path;
    },
    /**
     * Makes `file` the current version of its path and adjusts the project's totals. Returns the hash of
     * a replaced row that was deleted (a garbage candidate, unless the new version has the same content).
     */
    async putFile(tx: Sql, projectId: string, file: FileRow): Promise<string | undefined> {
      const { last_snapshot } = (await project(projectId, tx))!;
      const old = await current(tx, projectId, file.path);
      const released = old && await retire(tx, old, last_snapshot);
      await tx.run(`INSERT INTO entries (project_id, ${FILE}, after) VALUES (?, ?, ?, ?, ?, ?)`, [projectId, file.path, file.hash, file.size, file.mtime_ms, last_snapshot]);
      await tx.run('UPDATE projects SET used_bytes = used_bytes + ?, file_count = file_count + ? WHERE id = ?', [file.size - (old?.size ?? 0), old ? 0 : 1, projectId]);
      return released;
    },
    /** Removes the path from the current tree; returns the hash no longer referenced, if any. */
    async deleteFile(tx: Sql, projectId: string, path: string): Promise<string | undefined> {
      const { last_snapshot } = (await project(projectId, tx))!;
      const old = (await current(tx, projectId, path))!;
      await tx.run('UPDATE projects SET used_bytes = used_bytes - ?, file_count = file_count - 1 WHERE id = ?', [old.size, projectId]);
      return retire(tx, old, last_snapshot);
    },

    snapshots: (projectId: string) => db.all<SnapshotRow>(`SELECT ${SNAPSHOT} FROM snapshots WHERE project_id = ? ORDER BY seq DESC`, [projectId]),
    snapshot: (projectId: string, id: string) => db.get<SnapshotRow>(`SELECT ${SNAPSHOT} FROM snapshots WHERE project_id = ? AND id = ?`, [projectId, id]),
    snapshotFiles: (snapshot: SnapshotRow) => db.all<FileRow>(
      `SELECT ${FILE} FROM entries WHERE project_id = ? AND after < ? AND (upto IS NULL OR upto >= ?) ORDER BY path`,
      [snapshot.project_id, snapshot.seq, snapshot.seq],
    ),
    /** Records the current tree as a snapshot: one row, whatever the tree's size. */
    async insertSnapshot(tx: Sql, projectId: string, id: string, now: number, note: string | undefined): Promise<SnapshotRow> {
      const { file_count, used_bytes } = (await project(projectId, tx))!;
      const { lastInsertRowid: seq } = await tx.run(
        'INSERT INTO snapshots (id, project_id, created_at, file_count, total_bytes, note) VALUES (?, ?, ?, ?, ?, ?)',
        [id, projectId, now, file_count, used_bytes, note ?? null],
      );
      await tx.run('UPDATE projects SET last_snapshot = ? WHERE id = ?', [seq, projectId]);
      return { seq, id, project_id: projectId, created_at: now, file_count, total_bytes: used_bytes, note: note ?? null };
    },
    /**
     * Makes `target`'s tree current. Must follow a fresh snapshot (every current row is then seen): current
     * rows `target` does not contain are closed, its rows that are no longer current come back as new rows.
     */
    async restoreSnapshot(tx: Sql, projectId: string, target: SnapshotRow): Promise<void> {
      const { last_snapshot } = (await project(projectId, tx))!;
      await tx.run('UPDATE entries SET upto = ? WHERE project_id = ? AND upto IS NULL AND after >= ?', [last_snapshot, projectId, target.seq]);
      await tx.run(
        `INSERT INTO entries (project_id, ${FILE}, after) SELECT project_id, ${FILE}, ? FROM entries
         WHERE project_id = ? AND after < ? AND upto IS NOT NULL AND upto >= ?`,
        [last_snapshot, projectId, target.seq, target.seq],
      );
      await tx.run('UPDATE projects SET used_bytes = ?, file_count = ? WHERE id = ?', [target.total_bytes, target.file_count, projectId]);
    },
    /**
     * Deletes the project's snapshots older than the newest `keep` (never `spare`), then the closed rows
     * no remaining snapshot can see; returns the hashes those rows referenced.
     */
    async pruneSnapshots(tx: Sql, projectId: string, keep: number, spare: number): Promise<string[]> {
      const old = await tx.all<{ seq: number }>('SELECT seq FROM snapshots WHERE project_id = ? AND seq <> ? ORDER BY seq DESC LIMIT -1 OFFSET ?', [projectId, spare, keep]);
      if (!old.length) return [];
      const seqs = old.map((row) => row.seq);
      await tx.run(`DELETE FROM snapshots WHERE seq IN (${seqs.map(() => '?').join(',')})`, seqs);
      const invisible = `project_id = ? AND upto IS NOT NULL AND after < ? AND NOT EXISTS (
        SELECT 1 FROM snapshots s WHERE s.project_id = entries.project_id AND s.seq > entries.after AND s.seq <= entries.upto)`;
      const params = [projectId, Math.max(...seqs)];
      const released = await tx.all<{ hash: string }>(`SELECT DISTINCT hash FROM entries WHERE ${invisible}`, params);
      await tx.run(`DELETE FROM entries WHERE ${invisible}`, params);
      return hashes(released);
    },

    /** Whether any row (current or of a snapshot) still references the blob. */
    referenced: async (hash: string) => Boolean(await db.get('SELECT 1 FROM entries WHERE hash = ? LIMIT 1', [hash])),
    /** Every referenced blob hash (for the startup sweep). */
    allHashes: async () => new Set(hashes(await db.all<{ hash: string }>('SELECT DISTINCT hash FROM entries'))),
  };
}
export type VfsStore = ReturnType<typeof createVfsStore>;
