import { randomUUID } from 'node:crypto';
import type { MemoryStore } from './store.ts';

export interface Memory { id: string; text: string; tags: string[]; createdAt: number }
export interface MemoryHit extends Memory { score: number }

const IGNORED = new Set(['the', 'and', 'for', 'are', 'was', 'were', 'what', 'who', 'when', 'where', 'why', 'how', 'which', 'that', 'this', 'with',
  'you', 'your', 'our', 'his', 'her', 'its', 'their', 'has', 'have', 'had', 'did', 'does', 'can', 'could', 'would', 'should', 'will', 'about',
  'from', 'into', 'there', 'here', 'any', 'all', 'not', 'but', 'tell', 'know', 'remember', 'please', 'mine']);

/** Search terms: lower-case words of three letters or more that carry meaning, each once. */
export function searchTerms(query: string): string[] {
  const found = query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  return [...new Set(found.filter((w) => !IGNORED.has(w)))].slice(0, 12);
}

/**
 * Free-text memories with keyword search over all of them. A hit's score (0–1) is the share of the
 * query's terms it contains, each weighted by how rare the term is (idf); ties go to the shorter, then
 * the newer memory.
 */
export function createMemories(store: MemoryStore) {
  return {
    async remember(text: string, tags: string[] = []): Promise<Memory> {
      const memory = { id: randomUUID(), text: text.trim(), tags, createdAt: Date.now() };
      await store.insert({ id: memory.id, text: memory.text, tags: JSON.stringify(tags), created_at: memory.createdAt });
      return memory;
    },
    async search(query: string, limit: number): Promise<MemoryHit[]> {
      const terms = searchTerms(query);
      if (!terms.length) return [];
      const [rows, { total, df }] = await Promise.all([store.candidates(terms), store.frequencies(terms)]);
      const idf = df.map((n) => Math.log(1 + (total - n + 0.5) / (n + 0.5)));
      const weight = idf.reduce((sum, w) => sum + w, 0);
      return rows
        .map((row) => {
          const text = row.text.toLowerCase();
          const matched = terms.reduce((sum, term, i) => sum + (text.includes(term) ? idf[i]! : 0), 0);
          return { id: row.id, text: row.text, tags: JSON.parse(row.tags) as string[], createdAt: row.created_at, score: weight ? matched / weight : 0 };
        })
        .sort((a, b) => b.score - a.score || a.text.length - b.text.length || b.createdAt - a.createdAt)
        .slice(0, limit)
        .map((hit) => ({ ...hit, score: Math.round(hit.score * 1000) / 1000 }));
    },
    clear: () => store.deleteAll(),
  };
}
export type Memories = ReturnType<typeof createMemories>;
