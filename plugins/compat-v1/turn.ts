import { randomUUID } from 'node:crypto';
import { errors, HttpError, roomIdFor, Type, type AgentTurn, type ModelMessage, type Static } from '../../sdk/index.ts';

/** A message content in either format: a string, or an array of parts of which text parts count. */
export const Content = Type.Union([
  Type.String(),
  Type.Array(Type.Object({ type: Type.String(), text: Type.Optional(Type.String()) })),
  Type.Null(),
]);
export const WireMessage = Type.Object({ role: Type.String({ minLength: 1, maxLength: 50 }), content: Type.Optional(Content) });
type WireMessage = Static<typeof WireMessage>;

/** Body fields both formats share (room_id is ours: each room id has its own stored history). */
export const CommonFields = {
  messages: Type.Array(WireMessage, { minItems: 1, maxItems: 1000 }),
  model: Type.Optional(Type.String({ maxLength: 200 })),
  stream: Type.Optional(Type.Boolean()),
  room_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Isolates conversations: each room id has its own stored history' })),
};
export const AcceptHeader = Type.Object({ accept: Type.Optional(Type.String()) });

export const textOf = (content: Static<typeof Content> | undefined): string =>
  typeof content === 'string' ? content : (content ?? []).filter((p) => (p.type === 'text' || p.type === 'input_text') && p.text).map((p) => p.text).join('\n');

const SYSTEM_ROLES = new Set(['system', 'developer']);

/**
 * The turn a compat request asks for: the last user message is the text, the messages before it are
 * the history (when there are none, the room's stored history is used), system messages join `system`.
 * Stored in the room of `room_id` (default room otherwise). 400 without a user message.
 */
export function compatTurn(messages: WireMessage[], roomKey: string | undefined, system: string | undefined, signal: AbortSignal): AgentTurn {
  const last = messages.findLastIndex((m) => m.role === 'user' && textOf(m.content).trim());
  if (last === -1) throw errors.badRequest('messages must contain a user message with text');
  const history: ModelMessage[] = messages.slice(0, last)
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({ role: m.role as 'user' | 'assistant', content: textOf(m.content) }));
  const systemText = [system, ...messages.filter((m) => SYSTEM_ROLES.has(m.role)).map((m) => textOf(m.content))].filter((s) => s?.trim()).join('\n\n');
  return {
    roomId: roomIdFor('v1', roomKey ?? 'default'), text: textOf(messages[last]!.content), source: 'v1', signal,
    ...(history.length && { history }), ...(systemText && { system: systemText }),
  };
}

/** Ids in each format's style: `chatcmpl-…`, `msg_…`. */
export const formatId = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '')}`;

export const wantsStream = (stream: boolean | undefined, accept: string | undefined) => stream === true || (accept ?? '').includes('text/event-stream');

/** The error a stream reports after its headers went out. */
export const streamFailure = (error: unknown) => (HttpError.is(error) ? error : new HttpError(500, 'INTERNAL_ERROR', 'The reply failed'));
