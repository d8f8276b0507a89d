import type { ContextProvider } from '../../sdk/index.ts';
import { SEARCH_DEFAULTS, type KnowledgeService } from './service.ts';

/**
 * The agent's `knowledge` context provider: the fragments most similar to the user's message. It adds
 * nothing (rather than delaying the reply) while the knowledge service is not ready.
 */
export function knowledgeProvider(knowledge: KnowledgeService, limit: number): ContextProvider {
  return {
    name: 'knowledge',
    description: 'Fragments of uploaded documents that are relevant to the message',
    async get(message, signal) {
      if (!message.text.trim()) return undefined;
      try { await knowledge.ready(0); } catch { return undefined; }
      const hits = await knowledge.search(message.text, { threshold: SEARCH_DEFAULTS.threshold, limit, signal });
      if (!hits.length) return undefined;
      return {
        text: hits.map((hit) => `From "${hit.documentTitle}":\n${hit.text}`).join('\n\n'),
        items: hits.map((hit) => ({ id: hit.id, text: hit.text, title: hit.documentTitle, score: hit.similarity })),
      };
    },
  };
}
