import type { Action, ModelMessage, ModelRequest, ProviderResult } from '../../sdk/index.ts';
import { type Character, bioLines, characterContext } from './character.ts';

export interface PromptInput {
  character: Character;
  userText: string;
  history: ModelMessage[];
  providers: { name: string; result: ProviderResult }[];
  actions: Action[];
  /** The caller's extra system instructions. */
  system?: string;
  images?: ModelMessage['images'];
  purpose: string;
  signal: AbortSignal;
}

const section = (title: string, lines: string[]) => (lines.length ? `${title}\n${lines.map((l) => `- ${l}`).join('\n')}` : '');

function describeAction(action: Action): string {
  const params = (action.parameters ?? []).map((p) => `${p.name}${p.required ? ' (required)' : ''}: ${p.description}`);
  const similes = action.similes?.length ? ` (also: ${action.similes.join(', ')})` : '';
  return `${action.name}${similes}: ${action.description}${params.length ? ` Parameters: ${params.join('; ')}.` : ''}`;
}

/** The system prompt: persona, examples, context from providers, the actions and how to choose one. */
export function composeSystemPrompt({ character, providers, actions, system }: Pick<PromptInput, 'character' | 'providers' | 'actions' | 'system'>): string {
  const style = [...(character.style.all ?? []), ...(character.style.chat ?? [])];
  const examples = character.messageExamples.slice(0, 2).map((conversation) => conversation.map((m) => `${m.name}: ${m.content.text}`).join('\n'));
  const parts = [
    `You are ${character.name}. ${character.system}`.trim(),
    section('About you:', bioLines(character.bio)),
    character.adjectives.length ? `Personality: ${character.adjectives.join(', ')}.` : '',
    character.topics.length ? `You like to talk about: ${character.topics.join(', ')}.` : '',
    section('Style:', style),
    examples.length ? `Example conversations:\n${examples.join('\n\n')}` : '',
    ...providers.filter((p) => p.result.text.trim()).map((p) => `Context from ${p.name}:\n${p.result.text.trim()}`),
    actions.length
      ? `${section('Actions you can take:', actions.map(describeAction))}\nTo take an action, end your reply with one line of its own: ACTION: NAME {"parameter": "value"}. Use only the actions listed, and leave the line out when no action is needed.`
      : '',
    system?.trim() ?? '',
  ];
  return parts.filter(Boolean).join('\n\n');
}

/** The model request: the composed prompt as messages, plus the same context in structured form. */
export function composeRequest(input: PromptInput): ModelRequest {
  const user: ModelMessage = { role: 'user', content: input.userText, ...(input.images?.length && { images: input.images }) };
  return {
    messages: [{ role: 'system', content: composeSystemPrompt(input) }, ...input.history, user],
    context: {
      character: characterContext(input.character),
      userText: input.userText,
      providers: input.providers,
      actions: input.actions.map(({ name, description, similes, parameters }) => ({ name, description, similes, parameters })),
    },
    purpose: input.purpose,
    signal: input.signal,
  };
}
