import type { SqlDatabase } from '../../sdk/index.ts';

export const migrations = [
  `CREATE TABLE loaded_plugins (
    guest_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, entry TEXT NOT NULL, code TEXT NOT NULL, loaded_at INTEGER NOT NULL
  )`,
];

/** A loaded VFS plugin as kept for the next start: the exact code that was loaded, not the project's current files. */
export interface LoadedRecord { guestId: string; projectId: string; entry: string; code: string; loadedAt: number }
interface Row { guest_id: string; project_id: string; entry: string; code: string; loaded_at: number }

/** The VFS plugins that are loaded, so that a restart loads them again. */
export function createLoadedStore(db: SqlDatabase) {
  return {
    async save(record: LoadedRecord): Promise<void> {
      await db.run(
        'INSERT INTO loaded_plugins (guest_id, project_id, entry, code, loaded_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(guest_id) DO UPDATE SET project_id = excluded.project_id, entry = excluded.entry, code = excluded.code, loaded_at = excluded.loaded_at',
        [record.guestId, record.projectId, record.entry, record.code, record.loadedAt],
      );
    },
    async remove(guestId: string): Promise<void> {
      await db.run('DELETE FROM loaded_plugins WHERE guest_id = ?', [guestId]);
    },
    async all(): Promise<LoadedRecord[]> {
      const rows = await db.all<Row>('SELECT guest_id, project_id, entry, code, loaded_at FROM loaded_plugins ORDER BY loaded_at');
      return rows.map((r) => ({ guestId: r.guest_id, projectId: r.project_id, entry: r.entry, code: r.code, loadedAt: r.loaded_at }));
    },
  };
}
export type LoadedStore = ReturnType<typeof createLoadedStore>;
