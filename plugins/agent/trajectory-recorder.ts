import { randomUUID } from 'node:crypto';
import type { LlmCall, Logger, ProviderAccess, SqlDatabase, TrajectoryStatus } from '../../sdk/index.ts';

export interface TrajectoryStart {
  source: string;
  roomId?: string;
  conversationId?: string;
  entityId?: string;
  metadata: Record<string, unknown>;
}

type StepInput<T> = Omit<T, 'id' | 'trajectoryId' | 'timestamp' | 'createdAt'>;

/** One run being recorded: steps are collected in memory and written with the final status in one transaction. */
export interface TrajectoryHandle {
  readonly id: string;
  providerAccess(access: StepInput<ProviderAccess>): void;
  llmCall(call: StepInput<LlmCall>): void;
  finish(status: Exclude<TrajectoryStatus, 'active'>, metadata?: Record<string, unknown>): Promise<void>;
}

/**
 * Writes trajectories with the spec's fields. The `active` row is inserted without delaying the model
 * call; `finish` waits for it, then stores the steps, counts, token totals and status together.
 */
export function createTrajectoryRecorder(db: SqlDatabase, agentId: string, log: Logger) {
  return {
    start(input: TrajectoryStart): TrajectoryHandle {
      const id = randomUUID();
      const startTime = Date.now();
      const created = new Date(startTime).toISOString();
      const accesses: ProviderAccess[] = [];
      const calls: LlmCall[] = [];
      const inserted = db.run(
        `INSERT INTO trajectories (id, agent_id, room_id, entity_id, conversation_id, source, status, start_time, metadata, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
        [id, agentId, input.roomId ?? null, input.entityId ?? null, input.conversationId ?? null, input.source, startTime, JSON.stringify(input.metadata), created, created],
      );
      let finished = false;
      const stamp = () => { const timestamp = Date.now(); return { id: randomUUID(), trajectoryId: id, timestamp, createdAt: new Date(timestamp).toISOString() }; };
      return {
        id,
        providerAccess: (access) => { accesses.push({ ...access, ...stamp() }); },
        llmCall: (call) => { calls.push({ ...call, ...stamp() }); },
        async finish(status, metadata = {}) {
          if (finished) return;
          finished = true;
          const endTime = Date.now();
          try {
            await inserted;
            await db.tx(async (tx) => {
              for (const a of accesses) {
                await tx.run('INSERT INTO provider_accesses (id, trajectory_id, step_id, provider_name, purpose, data, timestamp, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
                  [a.id, id, a.stepId, a.providerName, a.purpose, JSON.stringify(a.data), a.timestamp, a.createdAt]);
              }
              for (const c of calls) {
                await tx.run(`INSERT INTO llm_calls (id, trajectory_id, step_id, model, system_prompt, user_prompt, response, temperature, max_tokens, purpose,
                  action_type, latency_ms, prompt_tokens, completion_tokens, timestamp, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
                [c.id, id, c.stepId, c.model, c.systemPrompt, c.userPrompt, c.response, c.temperature, c.maxTokens, c.purpose, c.actionType,
                  c.latencyMs, c.promptTokens, c.completionTokens, c.timestamp, c.createdAt]);
              }
              await tx.run(`UPDATE trajectories SET status = ?, end_time = ?, duration_ms = ?, llm_call_count = ?, provider_access_count = ?,
                total_prompt_tokens = ?, total_completion_tokens = ?, metadata = json_patch(metadata, ?), updated_at = ? WHERE id = ?`, [
                status, endTime, endTime - startTime, calls.length, accesses.length,
                calls.reduce((sum, c) => sum + c.promptTokens, 0), calls.reduce((sum, c) => sum + c.completionTokens, 0),
                JSON.stringify(metadata), new Date(endTime).toISOString(), id,
              ]);
            });
          } catch (error) {
            log.error('Could not record a trajectory', { error, trajectoryId: id, tags: ['trajectories'] });
          }
        },
      };
    },
  };
}
export type TrajectoryRecorder = ReturnType<typeof createTrajectoryRecorder>;
