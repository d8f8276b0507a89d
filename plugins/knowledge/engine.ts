import { errors, HttpError, type Logger } from '../../sdk/index.ts';
import type { Embedder } from './embedder.ts';
import type { KnowledgeStore, StoredVector } from './store.ts';
import { VectorIndex, type IndexHit } from './vector-index.ts';

export interface ReembedProgress { model: string; done: number; total: number }

export const embeddingFailed = (reason: string) => errors.internal(`Embeddings could not be generated: ${reason}`, 'EMBEDDING_FAILED');

/**
 * The active embedder and the in-memory index of its vectors. The index holds vectors of this one
 * model only, so a search never compares vectors of different models.
 */
export class Engine {
  private index: VectorIndex | undefined;
  /** Fixed by the first vector the model produced (or loaded from storage). */
  private dimension: number | undefined;

  constructor(readonly embedder: Embedder) {}

  get model(): string { return this.embedder.model(); }

  /** Embeds in batches; every failure (the provider's, or vectors of the wrong shape) is EMBEDDING_FAILED. */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const batchSize = this.embedder.batchSize ?? 16;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = texts.slice(start, start + batchSize);
      let output: ArrayLike<number>[];
      try { output = await this.embedder.embed(batch, signal); } catch (error) {
        throw HttpError.is(error) && error.code === 'EMBEDDING_FAILED' ? error : embeddingFailed((error as Error)?.message ?? String(error));
      }
      if (output?.length !== batch.length) throw embeddingFailed(`${this.model} returned ${output?.length ?? 0} vectors for ${batch.length} texts`);
      for (const raw of output) vectors.push(this.check(Float32Array.from(raw)));
    }
    return vectors;
  }

  add(vectors: StoredVector[]): void {
    for (const { id, vector } of vectors) {
      this.dimension ??= vector.length;
      (this.index ??= new VectorIndex(this.model, this.dimension)).add(id, vector);
    }
  }

  remove(ids: string[]): void {
    for (const id of ids) this.index?.remove(id);
  }

  search(query: Float32Array, limit: number, threshold: number): IndexHit[] {
    return this.index?.search(query, limit, threshold) ?? [];
  }

  get size(): number { return this.index?.size ?? 0; }

  private check(vector: Float32Array): Float32Array {
    if (!vector.length) throw embeddingFailed(`${this.model} returned an empty vector`);
    const dimension = (this.dimension ??= vector.length);
    if (vector.length !== dimension) throw embeddingFailed(`${this.model} returned a vector of dimension ${vector.length}, expected ${dimension}`);
    if (!vector.every(Number.isFinite)) throw embeddingFailed(`${this.model} returned a vector with non-finite values`);
    return vector;
  }
}

export interface ActivationDeps {
  store: KnowledgeStore;
  log: Logger;
  onProgress(progress: ReembedProgress): void;
  /** False once a newer activation (or unload) superseded this one: stop without touching anything. */
  current(): boolean;
}

const REEMBED_BATCH = 64;

/**
 * Prepares an embedder for service: loads it, re-embeds every fragment stored with another model
 * (batch by batch, durable as it goes, with progress events), then builds the index from storage.
 * Returns undefined when superseded.
 */
export async function activate(embedder: Embedder, deps: ActivationDeps): Promise<Engine | undefined> {
  const { store, log } = deps;
  await embedder.init?.();
  if (!deps.current()) return undefined;
  const engine = new Engine(embedder);
  const total = await store.staleCount(engine.model);
  if (total) log.info(`Re-embedding ${total} fragments with ${engine.model}`, { tags: ['knowledge'] });
  for (let done = 0; done < total;) {
    const batch = await store.staleBatch(engine.model, REEMBED_BATCH);
    if (!deps.current()) return undefined;
    if (!batch.length) break;
    const vectors = await engine.embed(batch.map((f) => f.text));
    if (!deps.current()) return undefined;
    await store.replaceVectors(batch.map((f, i) => ({ id: f.id, vector: vectors[i]! })), engine.model);
    done += batch.length;
    deps.onProgress({ model: engine.model, done, total });
  }
  for await (const page of store.vectors(engine.model)) {
    if (!deps.current()) return undefined;
    engine.add(page);
  }
  return deps.current() ? engine : undefined;
}
