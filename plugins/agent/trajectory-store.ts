import type { LlmCall, ProviderAccess, SqlDatabase, Trajectory, TrajectoryStore } from '../../sdk/index.ts';

interface TrajectoryRow {
  id: string; agent_id: string; room_id: string | null; entity_id: string | null; conversation_id: string | null; source: string;
  status: Trajectory['status']; start_time: number; end_time: number | null; duration_ms: number | null; llm_call_count: number;
  provider_access_count: number; total_prompt_tokens: number; total_completion_tokens: number; metadata: string; created_at: string; updated_at: string;
}

const toTrajectory = (r: TrajectoryRow): Trajectory => ({
  id: r.id, agentId: r.agent_id, roomId: r.room_id, entityId: r.entity_id, conversationId: r.conversation_id, source: r.source,
  status: r.status, startTime: r.start_time, endTime: r.end_time, durationMs: r.duration_ms, llmCallCount: r.llm_call_count,
  providerAccessCount: r.provider_access_count, totalPromptTokens: r.total_prompt_tokens, totalCompletionTokens: r.total_completion_tokens,
  metadata: JSON.parse(r.metadata), createdAt: r.created_at, updatedAt: r.updated_at,
});

const LLM_CALL_COLUMNS = `id, trajectory_id AS trajectoryId, step_id AS stepId, model, system_prompt AS systemPrompt, user_prompt AS userPrompt,
  response, temperature, max_tokens AS maxTokens, purpose, action_type AS actionType, latency_ms AS latencyMs, prompt_tokens AS promptTokens,
  completion_tokens AS completionTokens, timestamp, created_at AS createdAt`;
const ACCESS_COLUMNS = `id, trajectory_id AS trajectoryId, step_id AS stepId, provider_name AS providerName, purpose, data, timestamp, created_at AS createdAt`;

/** Reads and deletes recorded trajectories (served by a later trajectories plugin through `agentTrajectories`). */
export function createTrajectoryStore(db: SqlDatabase): TrajectoryStore {
  return {
    async list({ limit = 50, offset = 0, source, status } = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (source) { where.push('source = ?'); params.push(source); }
      if (status) { where.push('status = ?'); params.push(status); }
      const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM trajectories ${clause}`, params))?.n ?? 0;
      const rows = await db.all<TrajectoryRow>(`SELECT * FROM trajectories ${clause} ORDER BY start_time DESC, rowid DESC LIMIT ? OFFSET ?`, [...params, limit, offset]);
      return { trajectories: rows.map(toTrajectory), total };
    },
    async get(id) {
      const row = await db.get<TrajectoryRow>('SELECT * FROM trajectories WHERE id = ?', [id]);
      if (!row) return undefined;
      const llmCalls = await db.all<LlmCall>(`SELECT ${LLM_CALL_COLUMNS} FROM llm_calls WHERE trajectory_id = ? ORDER BY timestamp, rowid`, [id]);
      const accesses = await db.all<Omit<ProviderAccess, 'data'> & { data: string }>(`SELECT ${ACCESS_COLUMNS} FROM provider_accesses WHERE trajectory_id = ? ORDER BY timestamp, rowid`, [id]);
      return { trajectory: toTrajectory(row), llmCalls, providerAccesses: accesses.map((a) => ({ ...a, data: JSON.parse(a.data) })) };
    },
    async delete(ids) {
      return db.tx(async (tx) => {
        if (ids === 'all') {
          await tx.run('DELETE FROM llm_calls');
          await tx.run('DELETE FROM provider_accesses');
          return (await tx.run('DELETE FROM trajectories')).changes;
        }
        let deleted = 0;
        for (const id of ids) {
          await tx.run('DELETE FROM llm_calls WHERE trajectory_id = ?', [id]);
          await tx.run('DELETE FROM provider_accesses WHERE trajectory_id = ?', [id]);
          deleted += (await tx.run('DELETE FROM trajectories WHERE id = ?', [id])).changes;
        }
        return deleted;
      });
    },
  };
}
