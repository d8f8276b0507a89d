import { randomUUID } from 'node:crypto';
import { createToken, defineEvent, errors, HttpError, type AuditInput, type Logger, type WatchedRegistry } from '../../sdk/index.ts';
import { chunkText } from './chunker.ts';
import type { Embedder } from './embedder.ts';
import { activate, Engine, type ReembedProgress } from './engine.ts';
import { extractDocument, type DocumentInput } from './extract.ts';
import { Readiness, RETRY_AFTER_SECONDS } from './readiness.ts';
import type { DocumentRecord, FragmentRecord, KnowledgeStore } from './store.ts';
import { fetchUrlDocument } from './url-import.ts';

export interface UploadInput extends DocumentInput { metadata?: Record<string, unknown> }
export interface UploadResult { documentId: string; fragmentCount: number; filename: string; contentType: string; warnings: string[] }
export interface UrlImportResult extends UploadResult { isVideoTranscript: boolean }
export interface SearchHit { id: string; text: string; similarity: number; documentId: string; documentTitle: string; position: number }
export interface SearchOptions { threshold: number; limit: number; signal?: AbortSignal }
/** One bulk item after validation: an upload, or the reason it cannot be one. */
export type BulkItem = { filename: string; input: UploadInput } | { filename: string; error: HttpError };
export type BulkItemResult =
  | { index: number; ok: true; filename: string; documentId: string; fragmentCount: number; warnings?: string[] }
  | { index: number; ok: false; filename: string; error: string; code: string };
export interface BulkResult { ok: boolean; total: number; successCount: number; failureCount: number; results: BulkItemResult[] }

export const SEARCH_DEFAULTS = { threshold: 0.3, limit: 20 } as const;

/** The knowledge corpus: documents, fragments and semantic search (for routes and other plugins). */
export interface KnowledgeService {
  /** Resolves when ready; waits up to `waitMs` while loading, then throws 503 (with Retry-After while loading). */
  ready(waitMs: number, signal?: AbortSignal): Promise<void>;
  stats(): Promise<{ documentCount: number; fragmentCount: number; agentId: string }>;
  list(limit: number, offset: number): Promise<{ documents: DocumentRecord[]; total: number }>;
  get(id: string): Promise<(DocumentRecord & { content: { text: string } }) | undefined>;
  fragments(documentId: string): Promise<FragmentRecord[] | undefined>;
  /** Removes a document and its fragments from storage and from search; undefined when unknown. */
  delete(id: string): Promise<{ deletedFragments: number } | undefined>;
  search(query: string, options: SearchOptions): Promise<SearchHit[]>;
  upload(input: UploadInput): Promise<UploadResult>;
  importUrl(url: string, metadata: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<UrlImportResult>;
  bulk(items: BulkItem[]): Promise<BulkResult>;
}
export const knowledgeService = createToken<KnowledgeService>('knowledge.service');

/** Emitted after each batch while stored fragments are re-embedded for a new model. */
export const reembedProgressed = defineEvent<ReembedProgress>('knowledge.reembedding.progressed');

export interface KnowledgeSettings {
  /** Registry name of the embedder to use. */
  embeddingProvider: string;
  /** Longest extracted text accepted, in characters (DOCUMENT_TOO_LARGE beyond). */
  maxDocumentChars: number;
  fetchAllowedHosts: string[];
  videoSiteHosts: string[];
}

export interface KnowledgeDeps {
  store: KnowledgeStore;
  embedders: WatchedRegistry<Embedder>;
  settings: KnowledgeSettings;
  log: Logger;
  audit(entry: AuditInput): void;
  onProgress(progress: ReembedProgress): void;
}

interface Origin { source: string; url: string | null }

/** The metadata fields that label a document's origin, when the client supplies them. */
function originFrom(metadata: Record<string, unknown> | undefined, fallback: Origin): Origin {
  const label = (value: unknown, max: number) => (typeof value === 'string' && value.trim() ? value.trim().slice(0, max) : undefined);
  return { source: label(metadata?.source, 200) ?? fallback.source, url: label(metadata?.url, 4096) ?? fallback.url };
}

export class Knowledge implements KnowledgeService {
  private readonly readiness = new Readiness();
  private engine: Engine | undefined;
  private generation = 0;
  private agentId: Promise<string> | undefined;

  constructor(private readonly deps: KnowledgeDeps) {}

  /**
   * Follows the configured embedder in the registry: activates it now (in the background, so that
   * kernel start is not blocked) and again whenever an embedder of that name is added or removed.
   * Returns the function that stops following.
   */
  start(): () => void {
    const name = this.deps.settings.embeddingProvider;
    const stop = this.deps.embedders.onChange((changed) => { if (changed === name) this.select(name); });
    this.select(name);
    return () => { stop(); this.generation++; };
  }

  ready(waitMs: number, signal?: AbortSignal): Promise<void> {
    return this.readiness.ready(waitMs, signal);
  }

  async stats() {
    const { documents, fragments } = await this.deps.store.counts();
    this.agentId ??= this.deps.store.constant('agent_id', randomUUID);
    return { documentCount: documents, fragmentCount: fragments, agentId: await this.agentId };
  }

  list(limit: number, offset: number) {
    return this.deps.store.list(limit, offset);
  }

  async get(id: string) {
    const document = await this.deps.store.get(id);
    if (!document) return undefined;
    const { text, ...record } = document;
    return { ...record, content: { text } };
  }

  async fragments(documentId: string) {
    return (await this.deps.store.exists(documentId)) ? this.deps.store.fragments(documentId) : undefined;
  }

  async delete(id: string) {
    const ids = await this.deps.store.delete(id);
    if (!ids) return undefined;
    this.engine?.remove(ids);
    return { deletedFragments: ids.length };
  }

  /** Deletes every document and its fragments (agent reset); returns how many documents went. */
  async clear(): Promise<number> {
    const { fragmentIds, documents } = await this.deps.store.clear();
    this.engine?.remove(fragmentIds);
    return documents;
  }

  async search(query: string, { threshold, limit, signal }: SearchOptions): Promise<SearchHit[]> {
    const engine = this.activeEngine();
    // Embedding the query costs ~20 ms of CPU; with nothing indexed there is nothing to find.
    if (engine.size === 0) return [];
    const [vector] = await engine.embed([query], signal);
    const hits = engine.search(vector!, limit, threshold);
    const contexts = await this.deps.store.contexts(hits.map((h) => h.id));
    // A fragment deleted between the index lookup and this read is simply left out.
    return hits.flatMap(({ id, similarity }) => {
      const c = contexts.get(id);
      return c ? [{ id, text: c.text, similarity, documentId: c.documentId, documentTitle: c.documentTitle, position: c.position }] : [];
    });
  }

  upload(input: UploadInput): Promise<UploadResult> {
    return this.ingest(input, originFrom(input.metadata, { source: 'upload', url: null }));
  }

  async importUrl(url: string, metadata: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<UrlImportResult> {
    this.activeEngine(); // no fetch on behalf of a service that cannot store the result
    const { fetchAllowedHosts: allowedHosts, videoSiteHosts: videoHosts } = this.deps.settings;
    let fetched;
    try {
      fetched = await fetchUrlDocument(url, { allowedHosts, videoHosts, signal });
    } catch (error) {
      const refused = HttpError.is(error) && error.code === 'URL_NOT_ALLOWED';
      this.deps.audit({
        type: refused ? 'policy_decision' : 'fetch_proxy_error', severity: 'warn',
        summary: `Knowledge URL import ${refused ? 'refused' : 'failed'}: ${(error as Error).message}`, metadata: { url },
      });
      throw error;
    }
    this.deps.audit({ type: 'privileged_capability_invocation', severity: 'info', summary: 'Knowledge URL import fetched a user-supplied URL', metadata: { url, isVideoTranscript: fetched.isVideoTranscript } });
    const origin = { source: fetched.isVideoTranscript ? 'video' : 'url', url };
    const result = await this.ingest({ content: fetched.content, filename: fetched.filename, contentType: fetched.contentType, metadata }, origin);
    return { ...result, isVideoTranscript: fetched.isVideoTranscript };
  }

  /** Each item on its own (sequentially, since embedding is CPU-bound): one failure never aborts the rest. */
  async bulk(items: BulkItem[]): Promise<BulkResult> {
    const results: BulkItemResult[] = [];
    for (const [index, item] of items.entries()) {
      const { filename } = item;
      try {
        if ('error' in item) throw item.error;
        const { documentId, fragmentCount, warnings } = await this.upload(item.input);
        results.push({ index, ok: true, filename, documentId, fragmentCount, ...(warnings.length && { warnings }) });
      } catch (error) {
        const known = HttpError.is(error);
        if (!known) this.deps.log.error(`Bulk item ${index} (${filename}) failed`, { error, tags: ['knowledge'] });
        results.push({ index, ok: false, filename, error: known ? error.message : 'Internal error', code: known ? error.code : 'INTERNAL_ERROR' });
      }
    }
    const successCount = results.filter((r) => r.ok).length;
    const failureCount = results.length - successCount;
    return { ok: failureCount === 0, total: results.length, successCount, failureCount, results };
  }

  /**
   * Extract → chunk → embed → store. Storage is one transaction after every vector exists, so a
   * document whose embedding fails leaves nothing behind (EMBEDDING_FAILED).
   */
  private async ingest(input: UploadInput, origin: Origin): Promise<UploadResult> {
    const engine = this.activeEngine();
    const extracted = await extractDocument(input);
    const { maxDocumentChars } = this.deps.settings;
    if (extracted.text.length > maxDocumentChars) {
      throw errors.internal(`Document too large to process: ${extracted.text.length} characters of text, the limit is ${maxDocumentChars}`, 'DOCUMENT_TOO_LARGE');
    }
    const chunks = chunkText(extracted.text);
    const vectors = await engine.embed(chunks);
    // An embedder switch during embedding would store vectors of the old model: refuse instead.
    if (engine !== this.engine) throw errors.unavailable('The embedding model changed while this document was embedded; retry', RETRY_AFTER_SECONDS);
    const documentId = randomUUID();
    const createdAt = Date.now();
    const fragments = chunks.map((text, position) => ({ id: randomUUID(), text, position, createdAt, vector: vectors[position]! }));
    await this.deps.store.insert({
      id: documentId, filename: input.filename, contentType: extracted.contentType, fileSize: extracted.fileSize, createdAt,
      fragmentCount: fragments.length, ...origin, metadata: input.metadata ?? {}, text: extracted.text,
    }, fragments, engine.model);
    if (engine === this.engine) engine.add(fragments);
    return { documentId, fragmentCount: fragments.length, filename: input.filename, contentType: extracted.contentType, warnings: extracted.warnings };
  }

  private activeEngine(): Engine {
    this.readiness.assert();
    return this.engine!; // ready ⇔ engine set: select() changes both together
  }

  private select(name: string): void {
    const generation = ++this.generation;
    this.engine = undefined;
    const embedder = this.deps.embedders.get(name);
    if (!embedder) {
      this.readiness.set({ kind: 'unavailable', reason: `no embedding provider named "${name}" is registered` });
      return;
    }
    this.readiness.set({ kind: 'loading', reason: `preparing embedding model ${embedder.model()}` });
    const current = () => generation === this.generation;
    activate(embedder, { store: this.deps.store, log: this.deps.log, onProgress: this.deps.onProgress, current }).then(
      (engine) => {
        if (!engine || !current()) return;
        this.engine = engine;
        this.readiness.set({ kind: 'ready' });
        this.deps.log.info(`Knowledge ready: ${engine.size} vectors of ${engine.model}`, { tags: ['knowledge'] });
      },
      (error) => {
        if (!current()) return;
        this.readiness.set({ kind: 'unavailable', reason: `preparing embedding model ${embedder.model()} failed: ${(error as Error)?.message}` });
        this.deps.log.error('Knowledge activation failed', { error, tags: ['knowledge'] });
      },
    );
  }
}
