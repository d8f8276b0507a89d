import { reply, Type, type AgentRuntime, type MessageStore, type PluginContext } from '../../sdk/index.ts';
import { ConversationParams, ConversationSchema, MessageSchema, SEND_BODY_LIMIT, SendBody, Text, toMessage } from './schemas.ts';
import type { Conversations } from './service.ts';

/** Where web-chat messages come from (the inbox excludes this source). */
export const CHAT_SOURCE = 'client_chat';
const GREETING_PROMPT = 'The user just opened a new conversation. Greet them in one or two sentences.';

export function registerConversationRoutes(ctx: PluginContext, conversations: Conversations, runtime: AgentRuntime, messages: MessageStore): void {
  const One = Type.Object({ conversation: ConversationSchema });

  ctx.route({
    method: 'GET', path: '/api/conversations', tags: ['conversations'], summary: 'Conversations, most recently updated first',
    schema: { response: { 200: Type.Object({ conversations: Type.Array(ConversationSchema) }) } },
    handler: async () => ({ conversations: await conversations.list() }),
  });

  ctx.route({
    method: 'POST', path: '/api/conversations', tags: ['conversations'], summary: 'Create a conversation',
    description: 'Title defaults to "New Chat"; the first user message then names it.',
    schema: { body: Type.Object({ title: Type.Optional(Text(200)) }), response: { 201: One } },
    handler: async ({ body }) => reply(201, { conversation: await conversations.create(body.title?.trim()) }),
  });

  ctx.route({
    method: 'PATCH', path: '/api/conversations/:id', tags: ['conversations'], summary: 'Rename a conversation',
    schema: { params: ConversationParams, body: Type.Object({ title: Text(200) }), response: { 200: One } },
    handler: async ({ params, body }) => ({ conversation: await conversations.rename(await conversations.require(params.id), body.title.trim()) }),
  });

  ctx.route({
    method: 'DELETE', path: '/api/conversations/:id', tags: ['conversations'], summary: 'Delete a conversation and its messages for good',
    schema: { params: ConversationParams, response: { 200: Type.Object({ ok: Type.Literal(true) }) } },
    async handler({ params }) {
      await conversations.delete(await conversations.require(params.id));
      return { ok: true as const };
    },
  });

  ctx.route({
    method: 'GET', path: '/api/conversations/:id/messages', tags: ['conversations'], summary: 'Messages of a conversation, oldest first',
    description: 'The latest `limit` messages, or with `before` (a message id) the `limit` messages before it; an unknown `before` id gives none.',
    schema: {
      params: ConversationParams,
      query: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }), before: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
      response: { 200: Type.Object({ messages: Type.Array(MessageSchema) }) },
    },
    async handler({ params, query }) {
      const conversation = await conversations.require(params.id);
      return { messages: (await messages.list(conversation.roomId, query)).map(toMessage) };
    },
  });

  ctx.route({
    method: 'POST', path: '/api/conversations/:id/messages', tags: ['conversations'], bodyLimit: SEND_BODY_LIMIT,
    summary: 'Send a message and get the whole reply',
    description: 'Stores the user message and the reply. 503 when the agent is not running; model failures: 401 MODEL_AUTH_FAILED, 429, 502 MODEL_ERROR/MODEL_TIMEOUT, 503.',
    schema: { params: ConversationParams, body: SendBody, response: { 200: Type.Object({ text: Type.String(), agentName: Type.String() }) } },
    async handler({ params, body, signal }) {
      const conversation = await conversations.require(params.id);
      const answer = await runtime.respond({ roomId: conversation.roomId, text: body.text, images: body.images, source: CHAT_SOURCE, conversationId: conversation.id, signal });
      const text = await answer.text();
      await conversations.touch(conversation, body.text);
      return { text, agentName: answer.agentName };
    },
  });

  ctx.route({
    method: 'POST', path: '/api/conversations/:id/greeting', tags: ['conversations'], summary: 'Generate and store a greeting from the agent',
    description: 'generated is true when the active model wrote it; when the model fails, a greeting from the character is stored instead (generated false). 503 when the agent is not running.',
    schema: { params: ConversationParams, response: { 200: Type.Object({ text: Type.String(), agentName: Type.String(), generated: Type.Boolean() }) } },
    async handler({ params, signal }) {
      const conversation = await conversations.require(params.id);
      const turn = { roomId: conversation.roomId, text: GREETING_PROMPT, source: CHAT_SOURCE, purpose: 'greeting', store: 'reply' as const, history: [], conversationId: conversation.id, signal };
      const answer = await runtime.respond(turn);
      let result = { text: '', generated: true };
      try {
        result.text = await answer.text();
      } catch (error) {
        if (signal.aborted) throw error;
        ctx.log.warn(`Greeting generation failed, using the character's: ${(error as Error).message}`, { tags: ['conversations'] });
        result = { text: `Hi, I'm ${answer.agentName}. How can I help?`, generated: false };
        await messages.add({ roomId: conversation.roomId, role: 'assistant', text: result.text, source: CHAT_SOURCE });
      }
      await conversations.touch(conversation);
      return { ...result, agentName: answer.agentName };
    },
  });
}
