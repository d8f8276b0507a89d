import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlDatabase, SqlOptions } from '../../sdk/types.ts';
import { probeEngine, SqlJsDatabase } from './sqljs-database.ts';

/** One database file per plugin under `<state>/data`, plus a directory per plugin under `<state>/plugins`. */
export class StorageManager {
  private readonly open = new Map<string, Promise<SqlJsDatabase>>();

  constructor(private readonly stateDir: string) {}

  dir(pluginId: string): string {
    return join(this.stateDir, 'plugins', pluginId);
  }

  async sql(pluginId: string, options: SqlOptions = {}): Promise<SqlDatabase> {
    let pending = this.open.get(pluginId);
    if (!pending) {
      pending = mkdir(join(this.stateDir, 'data'), { recursive: true }).then(() => SqlJsDatabase.open(join(this.stateDir, 'data', `${pluginId}.sqlite`)));
      this.open.set(pluginId, pending);
      pending.catch(() => this.open.delete(pluginId));
    }
    const db = await pending;
    await migrate(db, options.migrations ?? []);
    return db;
  }

  async close(pluginId: string): Promise<void> {
    const pending = this.open.get(pluginId);
    if (!pending) return;
    this.open.delete(pluginId);
    await (await pending).close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
  }

  /** A real round trip through an open database (or a fresh in-memory one when none is open). */
  async probe(): Promise<boolean> {
    try {
      const first = this.open.values().next().value;
      const db = first ? await first : undefined;
      return db ? (await db.get<{ ok: number }>('SELECT 1 AS ok'))?.ok === 1 : await probeEngine();
    } catch {
      return false;
    }
  }
}

/** Applies the not-yet-applied tail of an append-only migration list, each in its own transaction. */
async function migrate(db: SqlDatabase, migrations: string[]): Promise<void> {
  if (!migrations.length) return;
  await db.run('CREATE TABLE IF NOT EXISTS _svc_migrations (id INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const row = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM _svc_migrations');
  for (let i = row?.n ?? 0; i < migrations.length; i++) {
    await db.tx(async (tx) => {
      for (const statement of splitStatements(migrations[i]!)) await tx.run(statement);
      await tx.run('INSERT INTO _svc_migrations (id, applied_at) VALUES (?, ?)', [i, Date.now()]);
    });
  }
}

function splitStatements(sql: string): string[] {
  return sql.split(/;\s*(?:\n|$)/).map((s) => s.trim()).filter(Boolean);
}
