import type { Embedder } from '../embedder.ts';
import { lazy } from './lazy.ts';
import { remoteModelId, type RemoteEmbedderSettings } from './remote.ts';

/**
 * Any OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, gateways, vLLM, LM Studio…) through the
 * official client. The base URL is operator configuration (it may be a loopback server), not user input.
 */
export function createOpenAiEmbedder(settings: RemoteEmbedderSettings): Embedder {
  const { baseUrl = 'https://api.openai.com/v1', apiKey = '', model = 'text-embedding-3-small', dimensions } = settings;
  const client = lazy(async () => {
    const { default: OpenAI } = await import('openai');
    return new OpenAI({ baseURL: baseUrl, apiKey: apiKey || 'unset', maxRetries: 1 });
  });
  return {
    name: 'openai',
    model: () => remoteModelId('openai', model, dimensions),
    batchSize: 64,
    async embed(texts, signal) {
      const response = await (await client()).embeddings.create({ model, input: texts, encoding_format: 'float', ...(dimensions && { dimensions }) }, { signal });
      return [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    },
  };
}
