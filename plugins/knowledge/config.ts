import { Type, type Static } from '../../sdk/index.ts';

export const knowledgeConfig = Type.Object({
  embeddingProvider: Type.String({
    minLength: 1, default: 'local', env: 'KNOWLEDGE_EMBEDDING_PROVIDER',
    description: 'Embedder by registry name: local (offline Universal Sentence Encoder lite, 512 dimensions), openai (any OpenAI-compatible /embeddings), ollama (/api/embed), or one another plugin registers. Changing it re-embeds every stored fragment at the next start.',
  }),
  embeddingBaseUrl: Type.Optional(Type.String({ minLength: 1, env: 'KNOWLEDGE_EMBEDDING_BASE_URL', description: 'Base URL for openai (ending in /v1; default https://api.openai.com/v1) or ollama (default http://127.0.0.1:11434). Operator configuration, so loopback is allowed.' })),
  embeddingApiKey: Type.Optional(Type.String({ minLength: 1, secret: true, env: 'KNOWLEDGE_EMBEDDING_API_KEY', description: 'API key of the embedding service' })),
  embeddingModel: Type.Optional(Type.String({ minLength: 1, env: 'KNOWLEDGE_EMBEDDING_MODEL', description: 'Model id (defaults: text-embedding-3-small for openai, nomic-embed-text for ollama)' })),
  embeddingDimensions: Type.Optional(Type.Integer({ minimum: 1, env: 'KNOWLEDGE_EMBEDDING_DIMENSIONS', description: 'Reduced output dimensions, for models that support it' })),
  serviceTimeoutMs: Type.Integer({ minimum: 0, default: 10_000, env: 'KNOWLEDGE_SERVICE_TIMEOUT_MS', description: 'How long /api/knowledge requests wait for the service to finish loading before 503 (capped at 60000)' }),
  documentsServiceTimeoutMs: Type.Integer({ minimum: 0, default: 10_000, env: 'DOCUMENTS_SERVICE_TIMEOUT_MS', description: 'The same for /api/documents requests (capped at 60000)' }),
  fetchAllowedHosts: Type.String({ default: '', env: 'SVC_FETCH_ALLOWED_HOSTS', description: 'Comma-separated host:port pairs URL import may reach although they are private (explicit test setups only; empty in production)' }),
  videoSiteHosts: Type.String({ default: 'youtube.com,www.youtube.com,m.youtube.com,youtu.be', description: 'Comma-separated host names whose pages are video pages: URL import reads their caption track' }),
  maxDocumentChars: Type.Integer({ minimum: 1, default: 2_000_000, description: 'Longest extracted text a document may have (500 DOCUMENT_TOO_LARGE beyond)' }),
  agentFragments: Type.Integer({ minimum: 1, maximum: 20, default: 4, description: 'Fragments the agent\'s knowledge provider adds to a reply\'s context' }),
});

export type KnowledgeConfig = Static<typeof knowledgeConfig>;

/** A comma-separated setting as a list of lower-cased entries. */
export const listSetting = (value: string) => value.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
