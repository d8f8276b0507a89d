import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import initSqlJs, { type Database, type SqlValue } from 'sql.js';
import type { SqlDatabase, SqlRunResult } from '../../sdk/types.ts';
import { writeFileAtomic } from '../../sdk/atomic-file.ts';
import { Journal } from './journal.ts';

let engine: ReturnType<typeof initSqlJs> | undefined;
function sqlJs() {
  const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  return (engine ??= initSqlJs({ locateFile: () => wasm }));
}

/** A real query on a fresh in-memory database: proves the engine loads and runs. */
export async function probeEngine(): Promise<boolean> {
  const db = new (await sqlJs()).Database();
  try { return db.exec('SELECT 1')[0]?.values[0]?.[0] === 1; } finally { db.close(); }
}

const META = 'CREATE TABLE IF NOT EXISTS _svc_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)';
type Statement = [string, unknown[]];

/**
 * One sql.js database kept in memory with write-ahead durability: each committed write is appended to
 * a journal and fsynced before its promise resolves; snapshots (export → temp → rename) compact the
 * journal; opening replays entries newer than the snapshot's sequence number.
 */
export class SqlJsDatabase implements SqlDatabase {
  private seq = 0;
  private lock: Promise<unknown> = Promise.resolve();
  private compacting = false;

  private constructor(
    private readonly db: Database,
    private readonly file: string,
    private readonly journal: Journal,
    private readonly compactBytes: number,
  ) {}

  static async open(file: string, compactBytes = 8 * 1024 * 1024): Promise<SqlJsDatabase> {
    const SQL = await sqlJs();
    let image: Uint8Array | undefined;
    try { image = await readFile(file); } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const db = new SQL.Database(image);
    db.run(META);
    const journal = new Journal(`${file}.journal`);
    const store = new SqlJsDatabase(db, file, journal, compactBytes);
    store.seq = Number(store.scalar("SELECT value FROM _svc_meta WHERE key = 'seq'") ?? 0);
    for (const entry of await journal.open()) {
      if (entry.s <= store.seq) continue;
      store.execAll(entry.q);
      store.seq = entry.s;
    }
    return store;
  }

  all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.locked(() => this.query<T>(sql, params));
  }

  async get<T>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run(sql: string, params: unknown[] = []): Promise<SqlRunResult> {
    const [result, durable] = await this.locked(() => {
      const statement: Statement = [sql, normalize(params)];
      return [this.execute(statement), this.commit([statement])] as const;
    });
    await durable;
    return result;
  }

  async tx<T>(fn: (db: Omit<SqlDatabase, 'tx'>) => Promise<T>): Promise<T> {
    const [result, durable] = await this.locked(async () => {
      const statements: Statement[] = [];
      const handle: Omit<SqlDatabase, 'tx'> = {
        all: async <R>(sql: string, params: unknown[] = []) => this.query<R>(sql, params),
        get: async <R>(sql: string, params: unknown[] = []) => this.query<R>(sql, params)[0],
        run: async (sql: string, params: unknown[] = []) => {
          const statement: Statement = [sql, normalize(params)];
          const result = this.execute(statement);
          statements.push(statement);
          return result;
        },
      };
      this.db.run('BEGIN');
      let result: T;
      try {
        result = await fn(handle);
        this.db.run('COMMIT');
      } catch (error) {
        this.db.run('ROLLBACK');
        throw error;
      }
      return [result, statements.length ? this.commit(statements) : undefined] as const;
    });
    await durable;
    return result;
  }

  /** Writes a snapshot and empties the journal. */
  snapshot(): Promise<void> {
    return this.locked(() => this.writeSnapshot());
  }

  async close(): Promise<void> {
    await this.snapshot();
    await this.journal.close();
    this.db.close();
  }

  private async writeSnapshot(): Promise<void> {
    this.db.run("INSERT OR REPLACE INTO _svc_meta (key, value) VALUES ('seq', ?)", [String(this.seq)]);
    await writeFileAtomic(this.file, this.db.export());
    await this.journal.truncate();
  }

  /**
   * Queues the journal entry in execution order (synchronously, under the lock) and returns the fsync
   * promise, which callers await outside the lock so that concurrent writers share one fsync.
   */
  private commit(statements: Statement[]): Promise<void> {
    const durable = this.journal.append({ s: ++this.seq, q: statements });
    return durable.then(() => {
      if (this.journal.bytes > this.compactBytes && !this.compacting) {
        this.compacting = true;
        void this.snapshot().finally(() => { this.compacting = false; });
      }
    });
  }

  /** Serializes operations so a transaction never sees another caller's statements. */
  private locked<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.lock.then(fn, fn);
    this.lock = next.catch(() => undefined);
    return next;
  }

  private execute([sql, params]: Statement): SqlRunResult {
    const before = Number(this.scalar('SELECT total_changes()'));
    this.db.run(sql, params as SqlValue[]);
    const [changes, rowid] = this.db.exec('SELECT total_changes(), last_insert_rowid()')[0]!.values[0]!;
    return { changes: Number(changes) - before, lastInsertRowid: Number(rowid) };
  }

  private execAll(statements: Statement[]): void {
    this.db.run('BEGIN');
    for (const statement of statements) this.db.run(statement[0], statement[1] as SqlValue[]);
    this.db.run('COMMIT');
  }

  private query<T>(sql: string, params: unknown[]): T[] {
    const stmt = this.db.prepare(sql, normalize(params) as SqlValue[]);
    try {
      const rows: T[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject() as T);
      return rows;
    } finally {
      stmt.free();
    }
  }

  private scalar(sql: string): SqlValue | undefined {
    return this.db.exec(sql)[0]?.values[0]?.[0];
  }
}

function normalize(params: unknown[]): unknown[] {
  return params.map((p) => (Buffer.isBuffer(p) ? new Uint8Array(p) : typeof p === 'boolean' ? Number(p) : p === undefined ? null : p));
}
