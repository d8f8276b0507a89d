import type { ModelMessage, ModelRequest } from '../../sdk/index.ts';
import { listing, pick } from './text.ts';

type Context = ModelRequest['context'];

const NAME_STATEMENT = /\b(?:my name is|my name's|call me|i am called|i'm called)\s+([\p{L}][\p{L}'-]*(?:\s+[\p{Lu}][\p{L}'-]*)?)/iu;

/** The user's name as they last stated it in this conversation. */
function statedName(history: ModelMessage[]): string | undefined {
  for (const message of [...history].reverse()) {
    if (message.role !== 'user') continue;
    const match = NAME_STATEMENT.exec(message.content);
    if (match) return match[1];
  }
  return undefined;
}

const introduce = (c: Context['character']) => `I'm ${c.name}. ${c.bio[0] ?? ''}`.trim();

/**
 * Replies that come from the character and the conversation itself: greetings, who the agent is and
 * what it can do, the user's name, thanks and goodbyes. Undefined when none applies.
 */
export function smallTalk(text: string, context: Context, history: ModelMessage[], seed: number): string | undefined {
  const input = text.toLowerCase().replace(/[’]/g, "'").trim();
  const { character } = context;
  const named = NAME_STATEMENT.exec(text);
  if (named) return pick([`Nice to meet you, ${named[1]}! What can I do for you?`, `Hi ${named[1]}, good to meet you. What's on your mind?`], seed);
  if (/\b(?:what(?:'s| is) my name|do you (?:know|remember) my name|who am i)\b/.test(input)) {
    const name = statedName(history);
    return name ? `You told me your name is ${name}.` : "I don't know your name yet. What should I call you?";
  }
  if (/^(?:hi|hello|hey|hiya|howdy|good (?:morning|afternoon|evening)|greetings)\b[\s!.,]*(?:there)?[\s!.]*$/.test(input)) {
    return pick([`Hello! ${introduce(character)} What would you like to talk about?`, `Hi there! I'm ${character.name}. How can I help today?`], seed);
  }
  if (/\b(?:who|what) are you\b|\bwhat(?:'s| is) your name\b|\bintroduce yourself\b|\btell me about yourself\b/.test(input)) {
    const traits = character.adjectives.length ? ` I'd call myself ${listing(character.adjectives.slice(0, 3))}.` : '';
    return `${introduce(character)}${traits}`;
  }
  if (/\bwhat can you do\b|\bwhat are you able to do\b|\b(?:your )?capabilities\b|^help\b/.test(input)) {
    const actions = context.actions.map((a) => `${a.name} (${a.description.replace(/\.$/, '')})`);
    const doing = actions.length ? ` I can also run these actions: ${listing(actions)}.` : '';
    return `I can chat, remember things you ask me to, and answer from what I know.${doing}`;
  }
  if (/\bhow are you\b|\bhow's it going\b|\bhow are things\b/.test(input)) return pick(["I'm doing well, thanks for asking! What's on your mind?", 'All good here. How about you?'], seed);
  if (/^(?:thanks|thank you|thx|ty|cheers)\b/.test(input)) return pick(["You're welcome!", 'Happy to help!', 'Any time.'], seed);
  if (/^(?:bye|goodbye|see you|see ya|good night|later)\b/.test(input)) return pick(['Goodbye! Talk soon.', 'See you later!', 'Bye for now. I\'ll be here.'], seed);
  return undefined;
}
