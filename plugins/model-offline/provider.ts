import { OFFLINE_PROVIDER, type ModelChunk, type ModelProvider, type ModelRequest } from '../../sdk/index.ts';
import { answer } from './responder.ts';

export const OFFLINE_MODEL = 'svc-offline-1';

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * The built-in model: no key, no network, deterministic. Streams its answer word by word (one chunk
 * per word, as fast as the consumer takes them: there is no generation time to wait for); stops when
 * the request aborts.
 */
export const offlineProvider: ModelProvider = {
  name: OFFLINE_PROVIDER,
  model: () => OFFLINE_MODEL,
  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { text, action } = answer(request);
    for (const word of text.match(/\S+\s*/g) ?? []) {
      request.signal.throwIfAborted();
      yield { type: 'text', text: word };
    }
    if (action) yield { type: 'action', ...action };
    yield { type: 'usage', promptTokens: estimateTokens(request.messages.map((m) => m.content).join('\n')), completionTokens: estimateTokens(text) };
  },
};
