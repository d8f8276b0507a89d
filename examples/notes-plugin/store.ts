import type { SqlDatabase } from '../../sdk/index.ts';

/** Append-only: the kernel runs each entry once per database, so shipped entries are never edited. */
export const migrations = [
  'CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, created_at INTEGER NOT NULL)',
];

export interface NoteRow { id: string; text: string; created_at: number }

/** The notes table; every method is one statement, so each write is durable when it resolves. */
export function createNoteStore(db: SqlDatabase) {
  return {
    insert: (row: NoteRow) => db.run('INSERT INTO notes (id, text, created_at) VALUES (?, ?, ?)', [row.id, row.text, row.created_at]),
    list: () => db.all<NoteRow>('SELECT id, text, created_at FROM notes ORDER BY created_at, rowid'),
    get: (id: string) => db.get<NoteRow>('SELECT id, text, created_at FROM notes WHERE id = ?', [id]),
    count: async () => (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM notes'))?.n ?? 0,
    remove: async (id: string) => (await db.run('DELETE FROM notes WHERE id = ?', [id])).changes > 0,
  };
}

export type NoteStore = ReturnType<typeof createNoteStore>;
