import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ModelChunk, ModelMessage, ModelProvider, ModelRequest } from '../../sdk/index.ts';
import { guardedStream } from '../model-common/guarded-stream.ts';
import type { Vendor, VendorFailure } from '../model-common/model-errors.ts';
import { perConfig } from '../model-common/per-config.ts';
import type { OpenAiConfig } from './config.ts';
import { resolveEndpoint } from './presets.ts';

/** Chat completions over OpenAI's API or any compatible one; reads the configuration on every call. */
export function createOpenAiProvider(config: () => OpenAiConfig): ModelProvider {
  // Every option explicit: the SDK would otherwise read OPENAI_* variables from process.env itself.
  const clientFor = perConfig((current: OpenAiConfig) => new OpenAI({
    apiKey: current.apiKey, baseURL: resolveEndpoint(current).baseUrl, organization: null, project: null, maxRetries: current.maxRetries,
  }));

  return {
    name: resolveEndpoint(config()).name,
    model: () => resolveEndpoint(config()).model,
    stream(request: ModelRequest) {
      const current = config();
      const endpoint = resolveEndpoint(current);
      const vendor: Vendor = { label: endpoint.label, baseUrl: endpoint.baseUrl, keyEnv: 'OPENAI_API_KEY', secrets: [current.apiKey ?? ''], describe };
      return guardedStream(vendor, request, current.timeoutMs,
        (signal) => clientFor(current).chat.completions.create({
          model: endpoint.model,
          messages: request.messages.map(toOpenAi),
          stream: true,
          stream_options: { include_usage: true },
          ...(request.maxTokens !== undefined && { [endpoint.tokenLimit]: request.maxTokens }),
          ...(request.temperature !== undefined && { temperature: request.temperature }),
        }, { signal }),
        translate);
    },
  };
}

/** Images go along as data URLs in content parts (vision models read them). */
function toOpenAi(message: ModelMessage): ChatCompletionMessageParam {
  if (message.role !== 'user' || !message.images?.length) return { role: message.role, content: message.content };
  return {
    role: 'user',
    content: [
      { type: 'text', text: message.content },
      ...message.images.map((image) => ({ type: 'image_url' as const, image_url: { url: `data:${image.mimeType};base64,${image.data}` } })),
    ],
  };
}

async function* translate(events: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<ModelChunk> {
  for await (const chunk of events) {
    const text = chunk.choices[0]?.delta?.content;
    if (text) yield { type: 'text', text };
    if (chunk.usage) yield { type: 'usage', promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
  }
}

function describe(error: unknown): VendorFailure | undefined {
  if (!(error instanceof OpenAI.APIError) || error.status === undefined) return undefined;
  const body = error.error as { message?: unknown } | undefined;
  return {
    status: error.status,
    message: typeof body?.message === 'string' ? body.message : error.message,
    retryAfter: error.headers?.get('retry-after') ?? undefined,
  };
}
