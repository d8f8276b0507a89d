import type { SqlDatabase } from '../../sdk/index.ts';
import type { CustomAction } from './schema.ts';

export const MIGRATIONS = [
  `CREATE TABLE custom_actions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL,
    similes TEXT NOT NULL,
    parameters TEXT NOT NULL,
    handler TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
];

interface Row {
  id: string; name: string; description: string; similes: string; parameters: string; handler: string;
  enabled: number; created_at: string; updated_at: string;
}

const fromRow = (row: Row): CustomAction => ({
  id: row.id, name: row.name, description: row.description, similes: JSON.parse(row.similes),
  parameters: JSON.parse(row.parameters), handler: JSON.parse(row.handler), enabled: row.enabled === 1,
  createdAt: row.created_at, updatedAt: row.updated_at,
});

const toParams = (a: CustomAction) => [
  a.name, a.description, JSON.stringify(a.similes), JSON.stringify(a.parameters), JSON.stringify(a.handler),
  a.enabled ? 1 : 0, a.createdAt, a.updatedAt, a.id,
];

/** Custom actions in the plugin's own database; JSON columns for the nested fields. */
export function createStore(db: SqlDatabase) {
  return {
    async list(): Promise<CustomAction[]> {
      return (await db.all<Row>('SELECT * FROM custom_actions ORDER BY created_at, id')).map(fromRow);
    },
    async get(id: string): Promise<CustomAction | undefined> {
      const row = await db.get<Row>('SELECT * FROM custom_actions WHERE id = ?', [id]);
      return row && fromRow(row);
    },
    async nameTaken(name: string, exceptId = ''): Promise<boolean> {
      return Boolean(await db.get('SELECT 1 FROM custom_actions WHERE name = ? AND id <> ?', [name, exceptId]));
    },
    async insert(action: CustomAction): Promise<void> {
      await db.run(`INSERT INTO custom_actions (name, description, similes, parameters, handler, enabled, created_at, updated_at, id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, toParams(action));
    },
    async update(action: CustomAction): Promise<void> {
      await db.run(`UPDATE custom_actions SET name = ?, description = ?, similes = ?, parameters = ?, handler = ?, enabled = ?,
        created_at = ?, updated_at = ? WHERE id = ?`, toParams(action));
    },
    async remove(id: string): Promise<boolean> {
      return (await db.run('DELETE FROM custom_actions WHERE id = ?', [id])).changes > 0;
    },
  };
}
export type CustomActionStore = ReturnType<typeof createStore>;
