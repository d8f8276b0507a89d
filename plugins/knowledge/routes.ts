import { Compile } from 'typebox/compile';
import { errors, Type, type PluginContext, type RouteDef, type RouteSchema, type Static } from '../../sdk/index.ts';
import type { KnowledgeConfig } from './config.ts';
import { SEARCH_DEFAULTS, type BulkItem, type KnowledgeService } from './service.ts';

/** Upload and bulk bodies may carry base64 documents: 32 MiB (spec), 413 PAYLOAD_TOO_LARGE beyond. */
const UPLOAD_BODY_LIMIT = 32 * 1024 * 1024;
const BULK_MAX_ITEMS = 100;

const Id = Type.String({ format: 'uuid' });
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form; string fields source and url label the document\'s origin' });
const documentFields = {
  id: Id, filename: Type.String(), contentType: Type.String({ description: 'MIME type' }), fileSize: Type.Integer({ description: 'Bytes uploaded or fetched' }),
  createdAt: Type.Integer({ description: 'Unix ms' }), fragmentCount: Type.Integer(),
  source: Type.String({ description: 'Origin label: upload, url, video, or metadata.source' }), url: Type.Union([Type.String(), Type.Null()]),
};
const KnowledgeDocument = Type.Object(documentFields);
const Fragment = Type.Object({ id: Id, text: Type.String(), position: Type.Integer({ minimum: 0 }), createdAt: Type.Integer() });
const SearchHit = Type.Object({
  id: Id, text: Type.String(), similarity: Type.Number({ minimum: 0, maximum: 1 }), documentId: Id,
  documentTitle: Type.String({ description: 'The document\'s filename' }), position: Type.Integer({ minimum: 0 }),
});
const Warnings = Type.Optional(Type.Array(Type.String(), { description: 'Only present when extraction produced warnings' }));

const UploadBody = Type.Object({
  content: Type.String({ minLength: 1, description: 'Plain text for text types; base64 for PDF and DOCX' }),
  filename: Type.String({ minLength: 1, maxLength: 255 }),
  contentType: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Default: inferred from the filename extension, else text/plain' })),
  metadata: Type.Optional(Metadata),
});
const checkItem = Compile(UploadBody);
const UploadResult = Type.Object({ ok: Type.Literal(true), documentId: Id, fragmentCount: Type.Integer(), warnings: Warnings });

const TIMEOUT_NOTE = 'While the embedding model loads (startup, or re-embedding after a model change) a request waits up to the family\'s '
  + 'service timeout (KNOWLEDGE_SERVICE_TIMEOUT_MS or DOCUMENTS_SERVICE_TIMEOUT_MS, default 10 s, at most 60 s), then answers 503 with '
  + 'Retry-After: 5; when the service is unavailable for another reason (the configured embedder is missing or failed) 503 comes without Retry-After.';

interface Family {
  tag: 'knowledge' | 'documents';
  /** How long a request waits for the loading service (the service caps it at 60 s). */
  waitMs: number;
  stats: string; list: string; document: string; url: string; bulk: string; search: string; fragments: string;
}

/** The two path families of the spec: the same operations and shapes under /api/knowledge and /api/documents. */
function families(config: KnowledgeConfig): Family[] {
  return [
    {
      tag: 'knowledge', waitMs: config.serviceTimeoutMs,
      stats: '/api/knowledge/stats', list: '/api/knowledge/documents', document: '/api/knowledge/documents/:id',
      url: '/api/knowledge/documents/url', bulk: '/api/knowledge/documents/bulk', search: '/api/knowledge/search',
      fragments: '/api/knowledge/fragments/:documentId',
    },
    {
      tag: 'documents', waitMs: config.documentsServiceTimeoutMs,
      stats: '/api/documents/stats', list: '/api/documents', document: '/api/documents/:id',
      url: '/api/documents/url', bulk: '/api/documents/bulk', search: '/api/documents/search',
      fragments: '/api/documents/:documentId/fragments',
    },
  ];
}

export function registerRoutes(ctx: PluginContext<KnowledgeConfig>, knowledge: KnowledgeService): void {
  for (const family of families(ctx.config.get())) registerFamily(ctx, knowledge, family);
}

function registerFamily(ctx: PluginContext<KnowledgeConfig>, knowledge: KnowledgeService, family: Family): void {
  /** Every knowledge route first waits (bounded) for the service to be ready. */
  const route = <S extends RouteSchema>(def: RouteDef<S>) => ctx.route<S>({
    ...def, tags: [family.tag], description: [def.description, TIMEOUT_NOTE].filter(Boolean).join(' '),
    handler: async (req) => {
      await knowledge.ready(family.waitMs, req.signal);
      return def.handler(req);
    },
  });
  const notFound = (id: string) => errors.notFound(`Document ${id} not found`);

  route({
    method: 'GET', path: family.stats, summary: 'Document and fragment counts',
    description: 'agentId is a stable id of this agent\'s corpus, created on first use.',
    schema: { response: { 200: Type.Object({ documentCount: Type.Integer(), fragmentCount: Type.Integer(), agentId: Id }) } },
    handler: () => knowledge.stats(),
  });

  route({
    method: 'GET', path: family.list, summary: 'Documents, newest first, without content',
    description: 'total is the number of all documents, not of this page.',
    schema: {
      query: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }), offset: Type.Integer({ minimum: 0, default: 0 }) }),
      response: { 200: Type.Object({ documents: Type.Array(KnowledgeDocument), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }) },
    },
    handler: async ({ query }) => ({ ...(await knowledge.list(query.limit, query.offset)), limit: query.limit, offset: query.offset }),
  });

  route({
    method: 'GET', path: family.search, summary: 'Semantic search over fragments',
    description: 'similarity is the cosine similarity of the query\'s and the fragment\'s vectors, clamped to 0..1; hits at or above threshold, '
      + 'best first, at most limit. Only vectors of the active embedding model are searched.',
    schema: {
      query: Type.Object({
        q: Type.String({ minLength: 1, maxLength: 4000, pattern: '\\S' }),
        threshold: Type.Number({ minimum: 0, maximum: 1, default: SEARCH_DEFAULTS.threshold }),
        limit: Type.Integer({ minimum: 1, maximum: 1000, default: SEARCH_DEFAULTS.limit }),
      }),
      response: { 200: Type.Object({ query: Type.String(), threshold: Type.Number(), results: Type.Array(SearchHit), count: Type.Integer() }) },
    },
    async handler({ query, signal }) {
      const results = await knowledge.search(query.q, { threshold: query.threshold, limit: query.limit, signal });
      return { query: query.q, threshold: query.threshold, results, count: results.length };
    },
  });

  route({
    method: 'GET', path: family.document, summary: 'One document with its extracted text',
    schema: { params: Type.Object({ id: Id }), response: { 200: Type.Object({ document: Type.Object({ ...documentFields, content: Type.Object({ text: Type.String() }) }) }) } },
    async handler({ params }) {
      const document = await knowledge.get(params.id);
      if (!document) throw notFound(params.id);
      return { document };
    },
  });

  route({
    method: 'GET', path: family.fragments, summary: 'A document\'s fragments, ordered by position (from 0)',
    schema: {
      params: Type.Object({ documentId: Id }),
      response: { 200: Type.Object({ documentId: Id, fragments: Type.Array(Fragment), count: Type.Integer() }) },
    },
    async handler({ params }) {
      const fragments = await knowledge.fragments(params.documentId);
      if (!fragments) throw notFound(params.documentId);
      return { documentId: params.documentId, fragments, count: fragments.length };
    },
  });

  route({
    method: 'DELETE', path: family.document, summary: 'Delete a document and its fragments',
    description: 'The fragments leave search at once and for good (also after a restart).',
    schema: { params: Type.Object({ id: Id }), response: { 200: Type.Object({ ok: Type.Literal(true), deletedFragments: Type.Integer() }) } },
    async handler({ params }) {
      const deleted = await knowledge.delete(params.id);
      if (!deleted) throw notFound(params.id);
      return { ok: true as const, ...deleted };
    },
  });

  route({
    method: 'POST', path: family.list, bodyLimit: UPLOAD_BODY_LIMIT, summary: 'Upload a document (text, or base64 for binary types)',
    description: 'PDF, DOCX, HTML, Markdown (reduced to plain text) and text types are extracted to text, chunked (~500 tokens, ~100 overlap, '
      + 'on sentence and paragraph boundaries) and embedded. Body up to 32 MiB. Nothing is stored unless every fragment was embedded '
      + '(500 EMBEDDING_FAILED); 500 DOCUMENT_TOO_LARGE (the spec\'s status) when the text exceeds maxDocumentChars; 400 for an '
      + 'unsupported type, bad base64, an unreadable file or no text. Answers 200 (the spec\'s default), with warnings when extraction produced any.',
    schema: { body: UploadBody, response: { 200: UploadResult } },
    async handler({ body }) {
      const { documentId, fragmentCount, warnings } = await knowledge.upload(body);
      return { ok: true as const, documentId, fragmentCount, ...(warnings.length && { warnings }) };
    },
  });

  route({
    method: 'POST', path: family.url, summary: 'Import a document from a URL',
    description: 'http(s) only; the host is resolved once and the connection pinned; private, loopback, link-local, CGNAT, multicast, metadata '
      + 'and IPv4-mapped addresses and every redirect are refused (400 URL_NOT_ALLOWED); 10 MB (413) and 15 s (504) caps; upstream errors 502. '
      + 'A video page (videoSiteHosts) with a caption track is imported as its transcript (isVideoTranscript true, source video); '
      + 'without captions the page itself is imported.',
    schema: {
      body: Type.Object({ url: Type.String({ minLength: 1, maxLength: 4096 }), metadata: Type.Optional(Metadata) }),
      response: {
        200: Type.Object({
          ok: Type.Literal(true), documentId: Id, fragmentCount: Type.Integer(), filename: Type.String(), contentType: Type.String(),
          isVideoTranscript: Type.Boolean(), warnings: Warnings,
        }),
      },
    },
    async handler({ body, signal }) {
      const { documentId, fragmentCount, filename, contentType, isVideoTranscript, warnings } = await knowledge.importUrl(body.url.trim(), body.metadata, signal);
      return { ok: true as const, documentId, fragmentCount, filename, contentType, isVideoTranscript, ...(warnings.length && { warnings }) };
    },
  });

  route({
    method: 'POST', path: family.bulk, bodyLimit: UPLOAD_BODY_LIMIT, summary: 'Upload 1 to 100 documents at once',
    description: 'Each item has the upload body\'s shape and is processed on its own: an invalid or failing item is reported as '
      + '{index, ok: false, filename, error, code} and never aborts the others. ok is true only when failureCount is 0; warnings appear '
      + 'only on successful items that have them. 400 when documents is missing, empty or longer than 100; body up to 32 MiB.',
    schema: {
      body: Type.Object({ documents: Type.Array(Type.Unknown({ description: 'An upload body' }), { minItems: 1, maxItems: BULK_MAX_ITEMS }) }),
      response: {
        200: Type.Object({
          ok: Type.Boolean(), total: Type.Integer(), successCount: Type.Integer(), failureCount: Type.Integer(),
          results: Type.Array(Type.Union([
            Type.Object({ index: Type.Integer(), ok: Type.Literal(true), filename: Type.String(), documentId: Id, fragmentCount: Type.Integer(), warnings: Warnings }),
            Type.Object({ index: Type.Integer(), ok: Type.Literal(false), filename: Type.String(), error: Type.String(), code: Type.String() }),
          ])),
        }),
      },
    },
    handler: ({ body }) => knowledge.bulk(body.documents.map(bulkItem)),
  });
}

/** Validates one bulk item with the upload schema; a bad item becomes its own failure. */
function bulkItem(raw: unknown, index: number): BulkItem {
  const named = (raw as { filename?: unknown } | null)?.filename;
  const filename = typeof named === 'string' && named.trim() ? named.trim() : `document-${index + 1}`;
  if (checkItem.Check(raw)) return { filename, input: raw as Static<typeof UploadBody> };
  const first = [...checkItem.Errors(raw)][0];
  return { filename, error: errors.badRequest(`Invalid document: ${first?.instancePath.slice(1) || 'item'} ${first?.message ?? 'is invalid'}`) };
}
