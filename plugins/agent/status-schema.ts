import { Type } from '../../sdk/index.ts';
import type { AgentRuntimeService } from './runtime.ts';

const State = Type.Enum(['not_started', 'starting', 'running', 'paused', 'stopped', 'restarting', 'error']);

/** The autonomy block of the status; `lastEventAt` is Unix ms of the latest autonomy event, null before any. */
export const Autonomy = Type.Object({ enabled: Type.Boolean(), thinking: Type.Boolean(), lastEventAt: Type.Union([Type.Number(), Type.Null()]) });

/** GET /api/status: the union of the spec's two shapes (`state` = `status`, `agentName` = `name`). */
export const Status = Type.Object({
  state: State, status: State, agentName: Type.String(), name: Type.String(), model: Type.String(), provider: Type.String(),
  uptime: Type.Number({ description: 'Milliseconds since the last (re)start; kept while paused, 0 when stopped' }),
  startedAt: Type.Union([Type.Number(), Type.Null()], { description: 'Unix ms of the last (re)start; null when not running' }),
  autonomy: Autonomy,
  pendingRestart: Type.Boolean(), pendingRestartReasons: Type.Array(Type.String()),
});

export function statusBody(runtime: AgentRuntimeService) {
  const status = runtime.status();
  return { ...status, status: status.state, name: status.agentName };
}
