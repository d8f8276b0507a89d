import { HttpError, sse, type AgentReply, type AgentRuntime, type PluginContext, type SseFrame } from '../../sdk/index.ts';
import { CHAT_SOURCE } from './routes.ts';
import { ConversationParams, SEND_BODY_LIMIT, SendBody } from './schemas.ts';
import type { Conversations } from './service.ts';
import type { Conversation } from './store.ts';

const HEARTBEAT_MS = 5000;

/** token frames as the reply streams, then done (after the reply is stored) or error. */
async function* replyFrames(answer: AgentReply, finished: () => Promise<unknown>): AsyncGenerator<SseFrame> {
  let fullText = '';
  try {
    for await (const text of answer) {
      fullText += text;
      yield { data: { type: 'token', text } };
    }
    await finished();
    yield { data: { type: 'done', fullText: fullText.trim(), agentName: answer.agentName } };
  } catch (error) {
    const failure = HttpError.is(error) ? error : new HttpError(500, 'INTERNAL_ERROR', 'The reply failed');
    yield { data: { type: 'error', message: failure.message, code: failure.code } };
  }
}

export function registerStreamRoute(ctx: PluginContext, conversations: Conversations, runtime: AgentRuntime): void {
  ctx.route({
    method: 'POST', path: '/api/conversations/:id/messages/stream', tags: ['conversations'], bodyLimit: SEND_BODY_LIMIT,
    summary: 'Send a message and stream the reply as Server-Sent Events',
    description: 'Unnamed data frames: {"type":"token","text":delta}…, then {"type":"done","fullText","agentName"} or {"type":"error","message","code"}; '
      + 'a ": heartbeat" comment every 5 s. The user message is stored before the stream opens (so 404/400/503 are plain JSON errors); '
      + 'the reply is stored before "done". When the client disconnects, the model call is aborted and the partial reply is not stored.',
    schema: { params: ConversationParams, body: SendBody },
    async handler({ params, body, signal }) {
      const conversation: Conversation = await conversations.require(params.id);
      const answer = await runtime.respond({ roomId: conversation.roomId, text: body.text, images: body.images, source: CHAT_SOURCE, conversationId: conversation.id, signal });
      return sse(replyFrames(answer, () => conversations.touch(conversation, body.text)), { heartbeatMs: HEARTBEAT_MS });
    },
  });
}
