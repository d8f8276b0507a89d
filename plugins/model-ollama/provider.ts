import { Ollama, type ChatResponse } from 'ollama';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../sdk/index.ts';
import { guardedStream } from '../model-common/guarded-stream.ts';
import type { Vendor, VendorFailure } from '../model-common/model-errors.ts';
import { OLLAMA_DEFAULT_MODEL, OLLAMA_DEFAULT_URL, type OllamaConfig } from './config.ts';

/** Chat with a local Ollama runtime (/api/chat); reads the configuration on every call. */
export function createOllamaProvider(config: () => OllamaConfig): ModelProvider {
  return {
    name: 'ollama',
    model: () => config().model ?? OLLAMA_DEFAULT_MODEL,
    stream(request: ModelRequest) {
      const current = config();
      const host = current.baseUrl ?? OLLAMA_DEFAULT_URL;
      const vendor: Vendor = { label: 'Ollama', baseUrl: host, keyEnv: 'OLLAMA_API_KEY', secrets: [current.apiKey ?? ''], describe };
      return guardedStream(vendor, request, current.timeoutMs,
        (signal) => {
          // The client takes no per-call signal, so each call gets a client whose fetch carries it.
          const client = new Ollama({
            host,
            headers: current.apiKey ? { Authorization: `Bearer ${current.apiKey}` } : {},
            fetch: (input, init) => fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal }),
          });
          return client.chat({
            model: current.model ?? OLLAMA_DEFAULT_MODEL,
            // Ollama takes a message's images as bare base64 strings.
            messages: request.messages.map(({ role, content, images }) => ({ role, content, ...(images?.length && { images: images.map((image) => image.data) }) })),
            stream: true,
            options: {
              ...(request.maxTokens !== undefined && { num_predict: request.maxTokens }),
              ...(request.temperature !== undefined && { temperature: request.temperature }),
            },
          });
        },
        translate);
    },
  };
}

async function* translate(events: AsyncIterable<ChatResponse>): AsyncGenerator<ModelChunk> {
  for await (const event of events) {
    if (event.message?.content) yield { type: 'text', text: event.message.content };
    if (event.done) yield { type: 'usage', promptTokens: event.prompt_eval_count ?? 0, completionTokens: event.eval_count ?? 0 };
  }
}

/** The package does not export its ResponseError class; it is recognised by name and status. */
function describe(error: unknown): VendorFailure | undefined {
  const failure = error as { name?: string; status_code?: unknown; error?: unknown };
  if (failure?.name !== 'ResponseError' || typeof failure.status_code !== 'number') return undefined;
  return { status: failure.status_code, message: String(failure.error) };
}
