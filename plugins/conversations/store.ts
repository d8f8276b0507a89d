import type { SqlDatabase } from '../../sdk/index.ts';

export const migrations = [
  `CREATE TABLE conversations (id TEXT PRIMARY KEY, title TEXT NOT NULL, room_id TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE INDEX conversations_updated ON conversations (updated_at)`,
];

export interface Conversation { id: string; title: string; roomId: string; createdAt: string; updatedAt: string }

const COLUMNS = 'id, title, room_id AS roomId, created_at AS createdAt, updated_at AS updatedAt';

/** Conversation records; their messages live in the agent's room store under `roomId`. */
export function createConversationStore(db: SqlDatabase) {
  return {
    list: () => db.all<Conversation>(`SELECT ${COLUMNS} FROM conversations ORDER BY updated_at DESC, rowid DESC`),
    get: (id: string) => db.get<Conversation>(`SELECT ${COLUMNS} FROM conversations WHERE id = ?`, [id]),
    async insert(c: Conversation): Promise<void> {
      await db.run('INSERT INTO conversations (id, title, room_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [c.id, c.title, c.roomId, c.createdAt, c.updatedAt]);
    },
    async update(c: Conversation): Promise<void> {
      await db.run('UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?', [c.title, c.updatedAt, c.id]);
    },
    async delete(id: string): Promise<boolean> {
      return (await db.run('DELETE FROM conversations WHERE id = ?', [id])).changes > 0;
    },
    async deleteAll(): Promise<void> {
      await db.run('DELETE FROM conversations');
    },
  };
}
export type ConversationStore = ReturnType<typeof createConversationStore>;
