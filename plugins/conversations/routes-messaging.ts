import { reply, roomIdFor, Type, type MessageStore, type PluginContext } from '../../sdk/index.ts';
import { toMessage } from './schemas.ts';
import type { Conversations } from './service.ts';

const AGENT_RESPONSE = 'agent_response';

/**
 * POST /api/messaging/submit: how a plugin route makes the agent speak (spec "Plugin-defined routes and
 * message submission"). A channel id that is a conversation id posts into that conversation.
 */
export function registerMessagingRoute(ctx: PluginContext, conversations: Conversations, messages: MessageStore): void {
  ctx.route({
    method: 'POST', path: '/api/messaging/submit', tags: ['conversations'], summary: 'Submit a message into a conversation or channel',
    description: 'channel_id names a conversation (its id) or any other channel (room roomIdFor("channel", server_id:channel_id)). '
      + 'source_type agent_response stores an assistant message (the agent speaking); any other source_type stores a user message, without triggering a reply. '
      + 'raw_message and metadata are kept with the message. Into a conversation, WebSocket clients receive proactive-message (agent messages) and conversation-updated. '
      + '201 {success: true, data: {id, channelId, roomId, conversationId, message}}.',
    schema: {
      body: Type.Object({
        channel_id: Type.String({ minLength: 1, maxLength: 200 }),
        server_id: Type.Optional(Type.String({ maxLength: 200 })),
        author_id: Type.Optional(Type.String({ maxLength: 200 })),
        content: Type.String({ minLength: 1, maxLength: 100_000, pattern: '\\S' }),
        source_type: Type.String({ minLength: 1, maxLength: 100, default: AGENT_RESPONSE }),
        raw_message: Type.Optional(Type.Object({ text: Type.Optional(Type.String()), thought: Type.Optional(Type.String()), actions: Type.Optional(Type.Array(Type.String())) })),
        metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      }),
    },
    async handler({ body }) {
      const conversation = await conversations.get(body.channel_id);
      const roomId = conversation?.roomId ?? roomIdFor('channel', `${body.server_id ?? ''}:${body.channel_id}`);
      const role = body.source_type === AGENT_RESPONSE ? 'assistant' : 'user';
      const message = await messages.add({
        roomId, role, text: body.content, source: body.source_type, ...(body.author_id && { from: body.author_id }),
        metadata: { channelId: body.channel_id, serverId: body.server_id ?? null, rawMessage: body.raw_message ?? null, ...body.metadata },
      });
      if (conversation) {
        if (role === 'assistant') ctx.ws.broadcast({ type: 'proactive-message', conversationId: conversation.id, message: toMessage(message) });
        await conversations.touch(conversation);
      }
      return reply(201, { success: true, data: { id: message.id, channelId: body.channel_id, roomId, conversationId: conversation?.id ?? null, message: toMessage(message) } });
    },
  });
}
