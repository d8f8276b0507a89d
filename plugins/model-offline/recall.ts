import type { ModelRequest, ProviderItem } from '../../sdk/index.ts';
import { contentWords, isQuestion, truncate } from './text.ts';

type Providers = ModelRequest['context']['providers'];

/** Hits below this similarity are ignored; statements need a stronger hit than questions. */
const QUESTION_SCORE = 0.3;
const STATEMENT_SCORE = 0.6;

/** The one or two sentences of `text` that share the most words with the question. */
function bestPassage(text: string, question: string): string {
  const asked = new Set(contentWords(question));
  const sentences = text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter(Boolean);
  if (sentences.length <= 2) return truncate(text, 320);
  let best = 0;
  let bestScore = -1;
  sentences.forEach((sentence, index) => {
    const score = contentWords(sentence).filter((w) => asked.has(w)).length;
    if (score > bestScore) { best = index; bestScore = score; }
  });
  return truncate(sentences.slice(best, best + 2).join(' '), 320);
}

/**
 * An answer from retrieved knowledge or memory, citing where it came from; undefined when nothing
 * relevant was retrieved (items without a score count as moderately relevant).
 */
export function recall(text: string, providers: Providers): string | undefined {
  const threshold = isQuestion(text) ? QUESTION_SCORE : STATEMENT_SCORE;
  let best: { provider: string; item: ProviderItem; score: number } | undefined;
  for (const { name, result } of providers) {
    for (const item of result.items ?? []) {
      const score = item.score ?? 0.5;
      // Memory wins ties: what the user told the agent is the most specific source.
      if (score >= threshold && (!best || score > best.score || (score === best.score && name === 'memory'))) best = { provider: name, item, score };
    }
  }
  if (!best) return undefined;
  const passage = bestPassage(best.item.text, text);
  if (best.provider === 'memory') return `From what you asked me to remember: “${passage}”`;
  return `Here's what I found${best.item.title ? ` in ${best.item.title}` : ''}: “${passage}”`;
}
