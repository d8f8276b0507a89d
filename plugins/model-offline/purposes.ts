import { INSTRUCTIONS_HEADING, type ModelRequest } from '../../sdk/index.ts';
import { listing, pick, truncate } from './text.ts';

type Character = ModelRequest['context']['character'];
type Providers = ModelRequest['context']['providers'];

const topicOf = (c: Character, seed: number) => (c.topics.length ? pick(c.topics, seed) : 'whatever you have in mind');

/** The first message of a conversation. */
export function greeting(c: Character, seed: number): string {
  return pick([
    `Hi, I'm ${c.name}! ${c.bio[0] ?? ''} What would you like to talk about?`,
    `Hello! ${c.name} here. I'm happy to help with ${topicOf(c, seed)}, or anything else. What's on your mind?`,
    `Hey there, I'm ${c.name}. Ask me anything, or tell me something you'd like me to remember.`,
  ], seed).replace(/\s+/g, ' ');
}

/** One autonomy cycle's reflection: a topic of the character, plus the best retrieved item when there is one. */
export function thought(c: Character, providers: Providers, cycle: number, prompt: string): string {
  const instructions = instructionsIn(prompt);
  if (instructions.length) return `Acting on ${instructions.length === 1 ? 'the instruction' : `${instructions.length} instructions`}: ${instructions.map((i) => `“${truncate(i, 200)}”`).join('; ')}.`;
  const item = providers.flatMap((p) => p.result.items ?? []).sort((a, b) => (b.score ?? 0) - (a.score ?? 0))[0];
  const noted = item ? ` Something worth keeping in mind: “${truncate(item.text, 160)}”` : ' Nothing new has come up, so I will stay ready for the next message.';
  return `Reflecting on ${topicOf(c, cycle)}.${noted}`;
}

/** The `- ` lines under the instructions heading of an autonomy prompt. */
function instructionsIn(prompt: string): string[] {
  const at = prompt.indexOf(INSTRUCTIONS_HEADING);
  if (at === -1) return [];
  return prompt.slice(at + INSTRUCTIONS_HEADING.length).split('\n').filter((line) => line.startsWith('- ')).map((line) => line.slice(2).trim());
}

const DEFAULT_ADJECTIVES = ['friendly', 'curious', 'patient', 'thoughtful', 'direct'];
const DEFAULT_TOPICS = ['learning new things', 'getting organised', 'good books', 'technology', 'everyday questions'];

/** Fills up to five, keeping the character's own entries first. */
const fiveOf = (own: string[], defaults: string[]) => [...new Set([...own, ...defaults])].slice(0, 5);

/** Character fields written from the character itself, for POST /api/character/generate without a vendor model. */
export function generateField(field: string, c: Character, prompt: string): string {
  const guidance = /^Guidance: (.+)$/m.exec(prompt)?.[1]?.trim();
  const adjectives = fiveOf(c.adjectives, DEFAULT_ADJECTIVES);
  const topics = fiveOf(c.topics, DEFAULT_TOPICS);
  switch (field) {
    case 'bio':
      return [
        `${c.name} is a ${listing(adjectives.slice(0, 2))} assistant.`,
        `${c.name} enjoys talking about ${listing(topics.slice(0, 2))}.`,
        guidance ? `${c.name} is especially good at this: ${guidance}.` : `${c.name} keeps answers short and useful.`,
      ].join('\n');
    case 'system':
      return `You are ${c.name}, a ${listing(adjectives.slice(0, 3))} assistant. Answer briefly and concretely, and ask a follow-up question when it helps.${guidance ? ` Focus: ${guidance}.` : ''}`;
    case 'style':
      return [`Be ${adjectives[0]} and ${adjectives[1]}.`, 'Keep replies short and concrete.', 'Ask a follow-up question when it helps.', ...(guidance ? [`Keep in mind: ${guidance}.`] : [])].join('\n');
    case 'chatExamples':
    case 'messageExamples':
      return [`User: Hi!`, `${c.name}: Hello! What can I do for you today?`, '', `User: Can you help me with ${topics[0]}?`, `${c.name}: Of course. Tell me where you are stuck.`].join('\n');
    case 'postExamples':
      return topics.slice(0, 3).map((topic, i) => [`A small thought on ${topic}: start simple.`, `Today I'm curious about ${topic}. What about you?`, `One tip for ${topic}: write it down.`][i]).join('\n');
    case 'adjectives':
      return adjectives.join('\n');
    case 'topics':
      return topics.join('\n');
    default:
      return `I can't generate "${field}" yet.`;
  }
}
