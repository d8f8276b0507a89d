import type { SqlDatabase } from '../../sdk/index.ts';
import type { Task, Todo } from './schemas.ts';

export const migrations = [
  `CREATE TABLE tasks (id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL, tags TEXT NOT NULL,
     is_completed INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE TABLE todos (id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL, tags TEXT NOT NULL,
     is_completed INTEGER NOT NULL, priority REAL, is_urgent INTEGER NOT NULL, type TEXT NOT NULL,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
];

interface Codec { encode(value: unknown): unknown; decode(value: unknown): unknown }
const json: Codec = { encode: (v) => JSON.stringify(v), decode: (v) => JSON.parse(v as string) };
const bool: Codec = { encode: (v) => (v ? 1 : 0), decode: (v) => v === 1 };
const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** One record type in one table: a column per field (snake_case), JSON or 0/1 where a codec says so. */
function createTable<T extends { id: string }>(db: SqlDatabase, table: string, fields: readonly (keyof T & string)[], codecs: Partial<Record<keyof T, Codec>>) {
  const columns = fields.map(snake);
  const select = `SELECT ${columns.join(', ')} FROM ${table}`;
  const toRow = (item: T) => fields.map((f) => (codecs[f] ? codecs[f]!.encode(item[f]) : item[f]));
  const fromRow = (row: Record<string, unknown>) =>
    Object.fromEntries(fields.map((f, i) => [f, codecs[f] ? codecs[f]!.decode(row[columns[i]!]) : row[columns[i]!]])) as T;
  return {
    all: async (): Promise<T[]> => (await db.all(select)).map(fromRow),
    async get(id: string): Promise<T | undefined> {
      const row = await db.get(`${select} WHERE id = ?`, [id]);
      return row && fromRow(row);
    },
    async insert(item: T): Promise<void> {
      await db.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, toRow(item));
    },
    /** False when the row is gone (deleted meanwhile). */
    async update(item: T): Promise<boolean> {
      return (await db.run(`UPDATE ${table} SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`, [...toRow(item), item.id])).changes > 0;
    },
    async remove(id: string): Promise<boolean> {
      return (await db.run(`DELETE FROM ${table} WHERE id = ?`, [id])).changes > 0;
    },
    async clear(): Promise<void> {
      await db.run(`DELETE FROM ${table}`);
    },
  };
}
export type Table<T extends { id: string }> = ReturnType<typeof createTable<T>>;

/** The workbench's tables in the plugin's own database. */
export function createWorkbenchStore(db: SqlDatabase) {
  return {
    tasks: createTable<Task>(db, 'tasks', ['id', 'name', 'description', 'tags', 'isCompleted', 'createdAt', 'updatedAt'], { tags: json, isCompleted: bool }),
    todos: createTable<Todo>(db, 'todos', ['id', 'name', 'description', 'tags', 'isCompleted', 'priority', 'isUrgent', 'type', 'createdAt', 'updatedAt'],
      { tags: json, isCompleted: bool, isUrgent: bool }),
  };
}
