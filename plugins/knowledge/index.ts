import { agentProviders, agentResets, createRegistry, definePlugin } from '../../sdk/index.ts';
import { knowledgeProvider } from './agent-provider.ts';
import { knowledgeConfig, listSetting } from './config.ts';
import { knowledgeEmbedders, type Embedder } from './embedder.ts';
import { createLocalEmbedder } from './embedders/local.ts';
import { createOllamaEmbedder } from './embedders/ollama.ts';
import { createOpenAiEmbedder } from './embedders/openai.ts';
import { registerRoutes } from './routes.ts';
import { Knowledge, knowledgeService, reembedProgressed } from './service.ts';
import { createKnowledgeStore, migrations } from './store.ts';

export { knowledgeEmbedders, type Embedder } from './embedder.ts';
export { knowledgeService, reembedProgressed, type KnowledgeService, type SearchHit } from './service.ts';

/** Knowledge documents, fragments, embeddings and semantic search; the agent's knowledge provider. */
export default definePlugin({
  id: 'knowledge',
  version: '0.1.0',
  description: 'Documents (text, PDF, DOCX, HTML, Markdown, URLs, video captions) chunked, embedded and searchable under /api/knowledge and /api/documents',
  optional: [agentProviders, agentResets],
  provides: [knowledgeService, knowledgeEmbedders],
  config: knowledgeConfig,
  async setup(ctx) {
    const config = ctx.config.get();
    const embedders = createRegistry<Embedder>('embedder');
    ctx.provide(knowledgeEmbedders, embedders);
    const remote = { baseUrl: config.embeddingBaseUrl, apiKey: config.embeddingApiKey, model: config.embeddingModel, dimensions: config.embeddingDimensions };
    for (const embedder of [createLocalEmbedder(), createOpenAiEmbedder(remote), createOllamaEmbedder(remote)]) ctx.track(embedders.add(embedder));

    const knowledge = new Knowledge({
      store: createKnowledgeStore(await ctx.storage.sql({ migrations })),
      embedders,
      settings: {
        embeddingProvider: config.embeddingProvider, maxDocumentChars: config.maxDocumentChars,
        fetchAllowedHosts: listSetting(config.fetchAllowedHosts), videoSiteHosts: listSetting(config.videoSiteHosts),
      },
      log: ctx.log,
      audit: (entry) => ctx.audit(entry),
      onProgress: (progress) => ctx.emit(reembedProgressed, progress),
    });
    ctx.provide(knowledgeService, knowledge);
    // Loading the model runs in the background: kernel start is not blocked; routes answer 503 meanwhile.
    // Tracked after the embedders, so at unload it stops following the registry before they leave it.
    ctx.track(knowledge.start());
    registerRoutes(ctx, knowledge);

    const providers = ctx.tryUse(agentProviders);
    if (providers) ctx.track(providers.add(knowledgeProvider(knowledge, config.agentFragments)));
    // POST /api/agent/reset wipes the agent's memory, and its documents are part of it.
    const resets = ctx.tryUse(agentResets);
    if (resets) ctx.track(resets.add({ name: 'knowledge', reset: async () => { await knowledge.clear(); } }));
  },
});
