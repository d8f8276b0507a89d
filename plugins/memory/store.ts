import type { SqlDatabase } from '../../sdk/index.ts';

export const migrations = [
  `CREATE TABLE memories (id TEXT PRIMARY KEY, text TEXT NOT NULL, tags TEXT NOT NULL, created_at INTEGER NOT NULL);
   CREATE INDEX memories_created ON memories (created_at)`,
];

export interface MemoryRow { id: string; text: string; tags: string; created_at: number }

/** Memories in SQL; keyword candidates are found with LIKE over all rows (no cap on how far back). */
export function createMemoryStore(db: SqlDatabase) {
  const anyTerm = (terms: string[]) => terms.map(() => 'lower(text) LIKE ?').join(' OR ');
  const patterns = (terms: string[]) => terms.map((t) => `%${t.replace(/[%_]/g, '')}%`);
  return {
    async insert(row: MemoryRow): Promise<void> {
      await db.run('INSERT INTO memories (id, text, tags, created_at) VALUES (?, ?, ?, ?)', [row.id, row.text, row.tags, row.created_at]);
    },
    /** Rows containing any of the terms. */
    candidates: (terms: string[]) => db.all<MemoryRow>(`SELECT id, text, tags, created_at FROM memories WHERE ${anyTerm(terms)}`, patterns(terms)),
    /** How many rows contain each term, and how many rows there are. */
    async frequencies(terms: string[]): Promise<{ total: number; df: number[] }> {
      const total = (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM memories'))?.n ?? 0;
      const df = await Promise.all(terms.map(async (term) => (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM memories WHERE lower(text) LIKE ?', patterns([term])))?.n ?? 0));
      return { total, df };
    },
    async deleteAll(): Promise<void> {
      await db.run('DELETE FROM memories');
    },
  };
}
export type MemoryStore = ReturnType<typeof createMemoryStore>;
