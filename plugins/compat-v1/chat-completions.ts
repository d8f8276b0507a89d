import { sse, Type, type AgentReply, type AgentRuntime, type PluginContext, type SseFrame } from '../../sdk/index.ts';
import { AcceptHeader, CommonFields, compatTurn, formatId, streamFailure, wantsStream } from './turn.ts';

interface Base { id: string; object: 'chat.completion.chunk'; created: number; model: string }

/** Chunks in the documented order: role delta, content deltas, empty delta with finish_reason stop, [DONE]. */
async function* completionChunks(answer: AgentReply, base: Base): AsyncGenerator<SseFrame> {
  const chunk = (delta: Record<string, string>, finish: 'stop' | null) => ({ data: { ...base, choices: [{ index: 0, delta, finish_reason: finish }] } });
  yield chunk({ role: 'assistant' }, null);
  try {
    for await (const content of answer) yield chunk({ content }, null);
  } catch (error) {
    const failure = streamFailure(error);
    yield { data: { error: { message: failure.message, type: failure.status >= 500 ? 'server_error' : 'invalid_request_error', code: failure.code } } };
    return;
  }
  yield chunk({}, 'stop');
  yield { data: '[DONE]' };
}

export function registerChatCompletions(ctx: PluginContext, runtime: AgentRuntime): void {
  ctx.route({
    method: 'POST', path: '/v1/chat/completions', tags: ['compat'], summary: 'Chat-completions compatible endpoint answered by the agent',
    description: 'The last user message is answered by the agent pipeline (character, context providers, actions); earlier messages are the history, '
      + 'or the stored history of room_id when the request has none. Streams (chat.completion.chunk lines, then data: [DONE]) when stream is true '
      + 'or Accept includes text/event-stream; a failure after the stream opened is a data line {error: {message, type, code}}. '
      + '400 without a user message or with blocked keys; 503 when the agent is not running. Any token is accepted when no API token is configured.',
    schema: {
      body: Type.Object(CommonFields),
      headers: AcceptHeader,
    },
    async handler({ body, headers, signal }) {
      const answer = await runtime.respond(compatTurn(body.messages, body.room_id, undefined, signal));
      const id = formatId('chatcmpl-');
      const created = Math.floor(Date.now() / 1000);
      const model = body.model ?? answer.model;
      if (wantsStream(body.stream, headers.accept)) return sse(completionChunks(answer, { id, object: 'chat.completion.chunk', created, model }), { heartbeatMs: 15_000 });
      const content = await answer.text();
      const { promptTokens, completionTokens } = answer.usage();
      return {
        id, object: 'chat.completion', created, model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      };
    },
  });
}
