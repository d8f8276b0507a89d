import { randomUUID } from 'node:crypto';
import type { SqlDatabase } from '../../sdk/index.ts';

/** Append-only migrations of the agent's database: settings, room messages, agent events, trajectories. */
export const migrations = [
  `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE messages (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, room_id TEXT NOT NULL, role TEXT NOT NULL,
     text TEXT NOT NULL, timestamp INTEGER NOT NULL, source TEXT, from_id TEXT, from_name TEXT, avatar_url TEXT, metadata TEXT);
   CREATE INDEX messages_room ON messages (room_id, seq);
   CREATE TABLE agent_events (
     event_id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL, run_id TEXT NOT NULL, seq INTEGER NOT NULL, payload TEXT NOT NULL);
   CREATE TABLE trajectories (
     id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, room_id TEXT, entity_id TEXT, conversation_id TEXT, source TEXT NOT NULL,
     status TEXT NOT NULL, start_time INTEGER NOT NULL, end_time INTEGER, duration_ms INTEGER,
     llm_call_count INTEGER NOT NULL DEFAULT 0, provider_access_count INTEGER NOT NULL DEFAULT 0,
     total_prompt_tokens INTEGER NOT NULL DEFAULT 0, total_completion_tokens INTEGER NOT NULL DEFAULT 0,
     metadata TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE INDEX trajectories_start ON trajectories (start_time);
   CREATE TABLE llm_calls (
     id TEXT PRIMARY KEY, trajectory_id TEXT NOT NULL, step_id TEXT NOT NULL, model TEXT NOT NULL, system_prompt TEXT NOT NULL,
     user_prompt TEXT NOT NULL, response TEXT NOT NULL, temperature REAL, max_tokens INTEGER, purpose TEXT NOT NULL,
     action_type TEXT, latency_ms INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
     timestamp INTEGER NOT NULL, created_at TEXT NOT NULL);
   CREATE INDEX llm_calls_trajectory ON llm_calls (trajectory_id);
   CREATE TABLE provider_accesses (
     id TEXT PRIMARY KEY, trajectory_id TEXT NOT NULL, step_id TEXT NOT NULL, provider_name TEXT NOT NULL, purpose TEXT NOT NULL,
     data TEXT NOT NULL, timestamp INTEGER NOT NULL, created_at TEXT NOT NULL);
   CREATE INDEX provider_accesses_trajectory ON provider_accesses (trajectory_id)`,
];

/** JSON values by key (character, autonomy, agent id). */
export interface Settings {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  /** Removes every key except those listed. */
  clearExcept(keep: string[]): Promise<void>;
}

/** The agent's stable id: created once, kept across restarts and resets. */
export async function ensureAgentId(settings: Settings): Promise<string> {
  const existing = await settings.get<string>('agent_id');
  if (existing) return existing;
  const id = randomUUID();
  await settings.set('agent_id', id);
  return id;
}

export function createSettings(db: SqlDatabase): Settings {
  return {
    async get<T>(key: string) {
      const row = await db.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    async set(key, value) {
      await db.run('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', [key, JSON.stringify(value)]);
    },
    async clearExcept(keep) {
      await db.run(`DELETE FROM settings WHERE key NOT IN (${keep.map(() => '?').join(', ') || "''"})`, keep);
    },
  };
}
