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

/** A registry that tells its owner when an entry comes or goes (so the active embedder can follow). */
export interface WatchedRegistry<T extends { name: string }> extends Registry<T> {
  onChange(listener: (name: string) => void): () => void;
}

export const knowledgeEmbedders = createToken<Registry<Embedder>>('knowledge.embedders');

export function createWatchedRegistry<T extends { name: string }>(kind: string): WatchedRegistry<T> {
  const items = new Map<string, T>();
  const listeners = new Set<(name: string) => void>();
  const changed = (name: string) => { for (const listener of listeners) listener(name); };
  return {
    add(item) {
      if (items.has(item.name)) throw new Error(`A ${kind} named "${item.name}" is already registered`);
      items.set(item.name, item);
      changed(item.name);
      return () => {
        if (items.get(item.name) !== item) return;
        items.delete(item.name);
        changed(item.name);
      };
    },
    get: (name) => items.get(name),
    list: () => [...items.values()],
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
