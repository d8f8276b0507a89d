import { Type, type PluginContext } from '../../sdk/index.ts';
import type { AgentEventLog } from './event-log.ts';

const AgentEvent = Type.Object({
  type: Type.Literal('agent_event'), version: Type.Literal(1), eventId: Type.String(), ts: Type.Number(), runId: Type.String(),
  seq: Type.Integer(), payload: Type.Record(Type.String(), Type.Unknown()),
});

export function registerEventRoutes(ctx: PluginContext<any>, events: AgentEventLog): void {
  ctx.route({
    method: 'GET', path: '/api/agent/events', tags: ['agent'], summary: 'Buffered agent events (autonomy cycles, lifecycle, actions, heartbeats)',
    description: 'Event ids are decimal strings, monotonic across restarts and resets. Without `after`: the latest `limit` matching events; '
      + 'with `after`: the first `limit` matching events after that id, or 410 CURSOR_EXPIRED when the id is not in the buffer. '
      + '`runId` and `fromSeq` (seq ≥ fromSeq) filter; a non-numeric fromSeq is a 400.',
    schema: {
      query: Type.Object({
        after: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
        limit: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
        runId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        fromSeq: Type.Optional(Type.Integer({ minimum: 0 })),
      }),
      response: {
        200: Type.Object({ events: Type.Array(AgentEvent), latestEventId: Type.Union([Type.String(), Type.Null()]), totalBuffered: Type.Integer(), replayed: Type.Integer() }),
      },
    },
    handler: ({ query }) => events.query(query),
  });
}
