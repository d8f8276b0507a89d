import type { PluginContext } from '../../sdk/index.ts';
import type { AgentEventLog } from './event-log.ts';
import type { AgentRuntimeService } from './runtime.ts';
import { statusBody } from './status-schema.ts';

/** Events a new WebSocket client receives after the status (spec-gaps "WebSocket /ws"). */
const REPLAY_ON_CONNECT = 120;

/** `/ws`: status on connect, then the latest buffered agent events; every new agent event is broadcast. */
export function registerWebSocket(ctx: PluginContext<any>, runtime: AgentRuntimeService, events: AgentEventLog): void {
  ctx.ws.onConnect((client) => {
    client.send({ type: 'status', ...statusBody(runtime) });
    for (const event of events.latest(REPLAY_ON_CONNECT)) client.send(event);
  });
  ctx.track(events.subscribe((event) => ctx.ws.broadcast(event)));
}
