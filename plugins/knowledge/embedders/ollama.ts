import type { Embedder } from '../embedder.ts';
import { lazy } from './lazy.ts';
import { remoteModelId, type RemoteEmbedderSettings } from './remote.ts';

/** An Ollama server's `POST /api/embed`, through the official client. */
export function createOllamaEmbedder(settings: RemoteEmbedderSettings): Embedder {
  const { baseUrl = 'http://127.0.0.1:11434', apiKey, model = 'nomic-embed-text', dimensions } = settings;
  const client = lazy(async () => {
    const { Ollama } = await import('ollama');
    return new Ollama({ host: baseUrl, ...(apiKey && { headers: { Authorization: `Bearer ${apiKey}` } }) });
  });
  return {
    name: 'ollama',
    model: () => remoteModelId('ollama', model, dimensions),
    batchSize: 32,
    async embed(texts) {
      const { embeddings } = await (await client()).embed({ model, input: texts, ...(dimensions && { dimensions }) });
      return embeddings;
    },
  };
}
