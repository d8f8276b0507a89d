import Anthropic from '@anthropic-ai/sdk';
import type { Base64ImageSource, MessageParam, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../sdk/index.ts';
import { guardedStream } from '../model-common/guarded-stream.ts';
import { splitSystem, type Turn } from '../model-common/messages.ts';
import type { Vendor, VendorFailure } from '../model-common/model-errors.ts';
import { perConfig } from '../model-common/per-config.ts';
import type { AnthropicConfig } from './config.ts';

/** Claude over the Messages API; reads the configuration on every call. */
export function createAnthropicProvider(config: () => AnthropicConfig): ModelProvider {
  // Every option explicit: the SDK would otherwise read ANTHROPIC_* variables from process.env itself.
  const clientFor = perConfig((current: AnthropicConfig) => new Anthropic({ apiKey: current.apiKey, baseURL: current.baseUrl, maxRetries: current.maxRetries }));

  return {
    name: 'anthropic',
    model: () => config().model,
    stream(request: ModelRequest) {
      const current = config();
      const vendor: Vendor = { label: 'Anthropic', baseUrl: current.baseUrl, keyEnv: 'ANTHROPIC_API_KEY', secrets: [current.apiKey ?? ''], describe };
      const { system, turns } = splitSystem(request.messages);
      return guardedStream(vendor, request, current.timeoutMs,
        (signal) => clientFor(current).messages.create({
          model: current.model,
          ...(system !== undefined && { system }),
          messages: turns.map(toAnthropic),
          max_tokens: request.maxTokens ?? current.maxTokens,
          ...(request.temperature !== undefined && { temperature: request.temperature }),
          stream: true,
        }, { signal }),
        translate);
    },
  };
}

/** Images become base64 image blocks before the text, as Anthropic recommends. */
function toAnthropic(turn: Turn): MessageParam {
  if (!turn.images?.length) return { role: turn.role, content: turn.content };
  return {
    role: turn.role,
    content: [
      ...turn.images.map((image) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: image.mimeType as Base64ImageSource['media_type'], data: image.data } })),
      { type: 'text' as const, text: turn.content },
    ],
  };
}

/** Input tokens arrive with message_start; the final output count with message_delta, which ends the reply. */
async function* translate(events: AsyncIterable<RawMessageStreamEvent>): AsyncGenerator<ModelChunk> {
  let promptTokens = 0;
  for await (const event of events) {
    if (event.type === 'message_start') promptTokens = event.message.usage.input_tokens;
    else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') yield { type: 'text', text: event.delta.text };
    else if (event.type === 'message_delta') yield { type: 'usage', promptTokens, completionTokens: event.usage.output_tokens };
  }
}

function describe(error: unknown): VendorFailure | undefined {
  if (!(error instanceof Anthropic.APIError) || error.status === undefined) return undefined;
  return { status: error.status, message: error.apiMessage ?? error.message, retryAfter: error.headers?.get('retry-after') ?? undefined };
}
