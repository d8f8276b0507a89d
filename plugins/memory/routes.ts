import { reply, Type, type ContextProvider, type PluginContext, type ProviderItem } from '../../sdk/index.ts';
import type { Memories } from './service.ts';

const Query = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S' }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
});
const ANSWER_LENGTH = 280;

interface Source { type: 'memory' | 'knowledge'; id: string; text: string; score: number; title?: string }

const clip = (text: string) => (text.length > ANSWER_LENGTH ? `${text.slice(0, ANSWER_LENGTH).replace(/\s+\S*$/, '')}…` : text);

/** The answer is the best source itself, attributed; the sources list what else was found. */
function quickAnswer(sources: Source[]): string {
  const best = sources[0];
  if (!best) return "I couldn't find anything about that in memory or knowledge.";
  return best.type === 'memory' ? `You noted: ${clip(best.text)}` : `From ${best.title ?? 'your documents'}: ${clip(best.text)}`;
}

export function registerMemoryRoutes(ctx: PluginContext, memories: Memories, knowledge: () => ContextProvider | undefined): void {
  ctx.route({
    method: 'POST', path: '/api/memory/remember', tags: ['memory'], summary: 'Save a free-text note',
    schema: {
      body: Type.Object({ text: Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S' }), tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20 })) }),
      response: { 201: Type.Object({ ok: Type.Literal(true), id: Type.String() }) },
    },
    handler: async ({ body }) => reply(201, { ok: true, id: (await memories.remember(body.text, body.tags)).id }),
  });

  ctx.route({
    method: 'GET', path: '/api/memory/search', tags: ['memory'], summary: 'Keyword search over all memories, best first',
    description: 'score 0–1: the share of the query\'s terms (words of 3+ letters, common words left out) a memory contains, weighted by rarity; ties go to shorter, then newer memories.',
    schema: {
      query: Query,
      response: { 200: Type.Object({ results: Type.Array(Type.Object({ id: Type.String(), text: Type.String(), score: Type.Number(), createdAt: Type.Number(), tags: Type.Array(Type.String()) })) }) },
    },
    handler: async ({ query }) => ({ results: await memories.search(query.q, query.limit) }),
  });

  ctx.route({
    method: 'GET', path: '/api/context/quick', tags: ['memory'], summary: 'A short answer from memory and knowledge, with its sources',
    description: 'Searches memories and, when the knowledge plugin is loaded, its context provider; the answer quotes the best-scoring source (extractive, no model call), sources are best first.',
    schema: {
      query: Query,
      response: {
        200: Type.Object({
          answer: Type.String(),
          sources: Type.Array(Type.Object({ type: Type.Union([Type.Literal('memory'), Type.Literal('knowledge')]), id: Type.String(), text: Type.String(), score: Type.Number(), title: Type.Optional(Type.String()) })),
        }),
      },
    },
    async handler({ query, signal }) {
      const fromMemory: Source[] = (await memories.search(query.q, query.limit)).map(({ id, text, score }) => ({ type: 'memory', id, text, score }));
      const found = await knowledge()?.get({ text: query.q, roomId: 'context-quick' }, signal);
      const fromKnowledge: Source[] = (found?.items ?? []).map((item: ProviderItem) => ({ type: 'knowledge', id: item.id, text: item.text, score: item.score ?? 0, ...(item.title && { title: item.title }) }));
      const sources = [...fromMemory, ...fromKnowledge].sort((a, b) => b.score - a.score).slice(0, query.limit);
      return { answer: quickAnswer(sources), sources };
    },
  });
}
