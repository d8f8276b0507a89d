import type { ModelRequest } from '../../sdk/index.ts';
import { matchAction } from './action-match.ts';
import { elizaReply } from './eliza.ts';
import { generateField, greeting, thought } from './purposes.ts';
import { recall } from './recall.ts';
import { smallTalk } from './small-talk.ts';
import { hash, listing } from './text.ts';

export interface OfflineAnswer { text: string; action?: { name: string; params: Record<string, string> } }

const GENERATE_PREFIX = 'character-generate:';

/** A style line asking for lower case is the one style rule applied mechanically. */
const styled = (text: string, style: string[]) => (style.some((s) => /lower[\s-]?case/i.test(s)) ? text.toLowerCase() : text);

/**
 * The offline model's whole decision, deterministic for the same request: a registered action the
 * message asks for, then small talk from the character, then retrieved knowledge or memory, then ELIZA.
 */
export function answer(request: ModelRequest): OfflineAnswer {
  const { context, purpose } = request;
  const history = request.messages.filter((m) => m.role !== 'system').slice(0, -1);
  const seed = hash(context.userText) + history.filter((m) => m.role === 'user').length;
  if (purpose === 'greeting') return { text: greeting(context.character, seed) };
  if (purpose === 'autonomy') return { text: thought(context.character, context.providers, history.length, context.userText) };
  if (purpose.startsWith(GENERATE_PREFIX)) return { text: generateField(purpose.slice(GENERATE_PREFIX.length), context.character, context.userText) };

  const text = context.userText.trim();
  const match = matchAction(text, context.actions);
  if (match?.missing.length) {
    return { text: `I can do that with ${match.name}, but I need ${listing(match.missing)}. For example: ${match.name} ${match.missing[0]}: …` };
  }
  if (match) return { text: `Sure, running ${match.name}.`, action: { name: match.name, params: match.params } };
  const reply = smallTalk(text, context, history, seed) ?? recall(text, context.providers) ?? elizaReply(text, seed);
  return { text: styled(reply, context.character.style) };
}
