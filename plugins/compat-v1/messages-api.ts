import { sse, Type, type AgentReply, type AgentRuntime, type PluginContext, type SseFrame } from '../../sdk/index.ts';
import { AcceptHeader, CommonFields, compatTurn, formatId, streamFailure, textOf, wantsStream } from './turn.ts';

const named = (event: string, data: Record<string, unknown>): SseFrame => ({ event, data: { type: event, ...data } });

/** Named events in the documented order: message_start, content_block_start, deltas, content_block_stop, message_delta, message_stop. */
async function* messageEvents(answer: AgentReply, id: string, model: string): AsyncGenerator<SseFrame> {
  yield named('message_start', {
    message: { id, type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
  });
  yield named('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  try {
    for await (const text of answer) yield named('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  } catch (error) {
    const failure = streamFailure(error);
    yield named('error', { error: { type: failure.status >= 500 ? 'api_error' : 'invalid_request_error', message: failure.message } });
    return;
  }
  yield named('content_block_stop', { index: 0 });
  yield named('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: answer.usage().completionTokens } });
  yield named('message_stop', {});
}

export function registerMessagesApi(ctx: PluginContext, runtime: AgentRuntime): void {
  ctx.route({
    method: 'POST', path: '/v1/messages', tags: ['compat'], summary: 'Messages-format compatible endpoint answered by the agent',
    description: 'Same pipeline and history rules as /v1/chat/completions; system (string or text blocks) joins the system prompt; max_tokens is accepted, not enforced; '
      + 'room_id is accepted here too. Streams named events when stream is true or Accept includes text/event-stream; a failure after the stream opened is an error event. '
      + '400 without a user message or with blocked keys; 503 when the agent is not running.',
    schema: {
      body: Type.Object({
        ...CommonFields,
        system: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String(), text: Type.Optional(Type.String()) }))])),
        max_tokens: Type.Optional(Type.Number({ minimum: 1 })),
      }),
      headers: AcceptHeader,
    },
    async handler({ body, headers, signal }) {
      const answer = await runtime.respond(compatTurn(body.messages, body.room_id, textOf(body.system), signal));
      const id = formatId('msg_');
      const model = body.model ?? answer.model;
      if (wantsStream(body.stream, headers.accept)) return sse(messageEvents(answer, id, model), { heartbeatMs: 15_000 });
      const text = await answer.text();
      const usage = answer.usage();
      return {
        id, type: 'message', role: 'assistant', content: [{ type: 'text', text }], model, stop_reason: 'end_turn', stop_sequence: null,
        usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens },
      };
    },
  });
}
