import type { SqlDatabase } from '../../sdk/index.ts';
import type { StoredTrigger, TriggerRun } from './schemas.ts';

/** Records are JSON; the columns the scheduler and the limits query are kept beside them. */
export const migrations = [
  `CREATE TABLE triggers (id TEXT PRIMARY KEY, enabled INTEGER NOT NULL, next_run_at_ms INTEGER, created_at INTEGER NOT NULL, record TEXT NOT NULL);
   CREATE INDEX triggers_due ON triggers (enabled, next_run_at_ms);
   CREATE TABLE trigger_runs (seq INTEGER PRIMARY KEY AUTOINCREMENT, trigger_id TEXT NOT NULL, status TEXT NOT NULL, started_at INTEGER NOT NULL, record TEXT NOT NULL);
   CREATE INDEX trigger_runs_by_trigger ON trigger_runs (trigger_id, seq)`,
];

/** Runs kept per trigger; older ones are deleted as new ones arrive. */
export const RUNS_KEPT = 100;

type Db = Omit<SqlDatabase, 'tx'>;
const parse = <T>(rows: { record: string }[]): T[] => rows.map((row) => JSON.parse(row.record) as T);

function queries(db: Db) {
  const select = async (where: string, params: unknown[] = []) =>
    parse<StoredTrigger>(await db.all(`SELECT record FROM triggers ${where}`, params));
  const write = (t: StoredTrigger) => db.run(
    'INSERT OR REPLACE INTO triggers (id, enabled, next_run_at_ms, created_at, record) VALUES (?, ?, ?, ?, ?)',
    [t.id, t.enabled ? 1 : 0, t.enabled ? t.nextRunAtMs ?? null : null, t.createdAt, JSON.stringify(t)],
  );
  return {
    list: () => select('ORDER BY created_at, id'),
    get: async (id: string) => (await select('WHERE id = ?', [id]))[0],
    /** Enabled triggers whose next run is at or before `now`, earliest first. */
    due: (now: number) => select('WHERE enabled = 1 AND next_run_at_ms <= ? ORDER BY next_run_at_ms, id', [now]),
    /** The enabled trigger that runs next. */
    next: async () => (await select('WHERE enabled = 1 AND next_run_at_ms IS NOT NULL ORDER BY next_run_at_ms, id LIMIT 1'))[0],
    async countEnabled(): Promise<number> {
      return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM triggers WHERE enabled = 1'))?.n ?? 0;
    },
    save: write,
    /** Deletes a trigger and its runs; false when there was none. */
    async remove(id: string): Promise<boolean> {
      await db.run('DELETE FROM trigger_runs WHERE trigger_id = ?', [id]);
      return (await db.run('DELETE FROM triggers WHERE id = ?', [id])).changes > 0;
    },
    /** Deletes every trigger and run. */
    async clear(): Promise<void> {
      await db.run('DELETE FROM trigger_runs');
      await db.run('DELETE FROM triggers');
    },
    /** Appends a run and drops the trigger's runs beyond the newest RUNS_KEPT. */
    async addRun(run: TriggerRun): Promise<void> {
      await db.run('INSERT INTO trigger_runs (trigger_id, status, started_at, record) VALUES (?, ?, ?, ?)', [run.triggerId, run.status, run.startedAt, JSON.stringify(run)]);
      await db.run(`DELETE FROM trigger_runs WHERE trigger_id = ? AND seq NOT IN
        (SELECT seq FROM trigger_runs WHERE trigger_id = ? ORDER BY seq DESC LIMIT ${RUNS_KEPT})`, [run.triggerId, run.triggerId]);
    },
    /** Newest first. */
    runs: async (triggerId: string) => parse<TriggerRun>(await db.all('SELECT record FROM trigger_runs WHERE trigger_id = ? ORDER BY seq DESC', [triggerId])),
    /** Failed runs (among those kept) that started at or after `since`. */
    async failuresSince(since: number): Promise<number> {
      return (await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM trigger_runs WHERE status = 'error' AND started_at >= ?", [since]))?.n ?? 0;
    },
  };
}

export type TriggerQueries = ReturnType<typeof queries>;

/** Triggers and their run history in the plugin's database; `tx` gives the same queries inside one transaction. */
export function createTriggerStore(db: SqlDatabase) {
  return { ...queries(db), tx: <T>(fn: (q: TriggerQueries) => Promise<T>) => db.tx((handle) => fn(queries(handle))) };
}
export type TriggerStore = ReturnType<typeof createTriggerStore>;
