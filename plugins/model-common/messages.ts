import type { ModelMessage } from '../../sdk/index.ts';

export type Turn = ModelMessage & { role: 'user' | 'assistant' };

/** For vendors that take the system prompt apart from the turns (Anthropic, Gemini). */
export function splitSystem(messages: ModelMessage[]): { system: string | undefined; turns: Turn[] } {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const turns = messages.filter((m): m is Turn => m.role !== 'system');
  return { system: system || undefined, turns };
}
