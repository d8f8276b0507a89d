import type { Action, ContextProvider } from '../../sdk/index.ts';
import type { Memories } from './service.ts';

const CONTEXT_HITS = 3;
/** Hits sharing less than this share of the message's terms are not worth the prompt space. */
const CONTEXT_MIN_SCORE = 0.3;

/** Context for each reply: the memories most related to the message. */
export function memoryProvider(memories: Memories): ContextProvider {
  return {
    name: 'memory',
    description: 'Notes the user asked the agent to remember',
    async get({ text }) {
      const hits = (await memories.search(text, CONTEXT_HITS)).filter((hit) => hit.score >= CONTEXT_MIN_SCORE);
      if (!hits.length) return undefined;
      return {
        text: `Things the user asked you to remember:\n${hits.map((hit) => `- ${hit.text}`).join('\n')}`,
        items: hits.map(({ id, text, score }) => ({ id, text, score })),
      };
    },
  };
}

/** The agent's way to save a note when the user asks it to remember something. */
export function rememberAction(memories: Memories): Action {
  return {
    name: 'REMEMBER',
    description: 'Save a note to long-term memory so it can be recalled later',
    similes: ['remember that', 'remember', 'note that', 'make a note that', 'make a note', "don't forget that", "don't forget", 'keep in mind that', 'save a note'],
    parameters: [{ name: 'text', description: 'What to remember', required: true }],
    async handler({ text }) {
      const memory = await memories.remember(text!, ['chat']);
      return { text: `Got it, I'll remember that: “${memory.text}”`, data: { id: memory.id } };
    },
  };
}
