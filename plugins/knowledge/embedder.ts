import { createToken, type Registry } from '../../sdk/index.ts';

/**
 * Turns texts into vectors. The knowledge plugin registers `local` (offline), `openai` and `ollama`;
 * other plugins may add their own with `ctx.track(ctx.use(knowledgeEmbedders).add(embedder))`, and the
 * `embeddingProvider` setting selects one by name.
 */
export interface Embedder {
  name: string;
  /** Model id stored with every vector; vectors of different model ids are never compared. */
  model(): string;
  /** One-time preparation (loading weights); the service answers 503 + Retry-After until it resolves. */
  init?(): Promise<void>;
  /** One vector per text, in order. */
  embed(texts: string[], signal?: AbortSignal): Promise<ArrayLike<number>[]>;
  /** Texts per `embed` call (default 16). */
  batchSize?: number;
}

export const knowledgeEmbedders = createToken<Registry<Embedder>>('knowledge.embedders');
