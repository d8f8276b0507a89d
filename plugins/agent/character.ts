import { randomInt } from 'node:crypto';
import { Compile } from 'typebox/compile';
import { Type, type ModelRequest, type Static } from '../../sdk/index.ts';

const Lines = (maxItems: number, maxLength = 2000) => Type.Array(Type.String({ maxLength }), { maxItems });
const MessageExample = Type.Object({ name: Type.String({ maxLength: 100 }), content: Type.Object({ text: Type.String({ maxLength: 4000 }) }) });

/** The character record of spec-gaps "Character"; `chatExamples` of the generate endpoint maps to `messageExamples`. */
export const Character = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  username: Type.Optional(Type.String({ maxLength: 100 })),
  bio: Type.Union([Type.String({ maxLength: 10_000 }), Lines(100)]),
  system: Type.String({ maxLength: 10_000 }),
  adjectives: Lines(50, 100),
  topics: Lines(50, 200),
  style: Type.Object({ all: Type.Optional(Lines(50)), chat: Type.Optional(Lines(50)), post: Type.Optional(Lines(50)) }, { additionalProperties: false }),
  messageExamples: Type.Array(Type.Array(MessageExample, { maxItems: 20 }), { maxItems: 50 }),
  postExamples: Lines(50),
}, { additionalProperties: false });
export type Character = Static<typeof Character>;

const CharacterPatch = Type.Partial(Character, { additionalProperties: false });
const checkPatch = Compile(CharacterPatch);

export interface ValidationError { path: string; message: string }

/** Validates a partial character; one message per offending path. */
export function validateCharacterPatch(value: unknown): { ok: true; patch: Partial<Character> } | { ok: false; errors: ValidationError[] } {
  if (checkPatch.Check(value)) return { ok: true, patch: value };
  const byPath = new Map<string, string>();
  for (const error of checkPatch.Errors(value)) if (!byPath.has(error.instancePath)) byPath.set(error.instancePath || '/', error.message);
  return { ok: false, errors: [...byPath].map(([path, message]) => ({ path, message })) };
}

export function defaultCharacter(name: string): Character {
  return {
    name,
    bio: [
      'A friendly, curious assistant that runs on your own machine.',
      'Remembers what you ask, answers from your documents and runs the actions you give it.',
    ],
    system: `You are ${name}, a helpful and honest assistant. Keep answers short, warm and concrete.`,
    adjectives: ['friendly', 'curious', 'direct'],
    topics: ['your notes and documents', 'getting things done', 'ideas worth exploring'],
    style: { all: ['Be warm and direct.'], chat: ['Ask a follow-up question when it helps.'], post: [] },
    messageExamples: [[{ name: '{{user}}', content: { text: 'Hi!' } }, { name, content: { text: 'Hello! What can I do for you today?' } }]],
    postExamples: [],
  };
}

export const bioLines = (bio: Character['bio']): string[] => (Array.isArray(bio) ? bio : bio.split(/\n+/)).map((l) => l.trim()).filter(Boolean);

/** The structured character a model provider receives. */
export function characterContext(character: Character): ModelRequest['context']['character'] {
  return {
    name: character.name, bio: bioLines(character.bio), adjectives: character.adjectives, topics: character.topics,
    style: [...(character.style.all ?? []), ...(character.style.chat ?? [])],
  };
}

const NAMES = ['Ada', 'Atlas', 'Echo', 'Felix', 'Hazel', 'Iris', 'Juniper', 'Kai', 'Luna', 'Milo', 'Nova', 'Orion', 'Quinn', 'Remy', 'Sage', 'Skye', 'Theo', 'Vera', 'Wren', 'Zara'];
export const randomName = (): string => NAMES[randomInt(NAMES.length)]!;

export interface SchemaField { key: string; type: string; label: string; description?: string; children?: SchemaField[] }

/** Field descriptions for rendering a character form (GET /api/character/schema). */
export const CHARACTER_FIELDS: SchemaField[] = [
  { key: 'name', type: 'string', label: 'Name', description: 'Display name, 1–100 characters' },
  { key: 'username', type: 'string', label: 'Username', description: 'Optional handle' },
  { key: 'bio', type: 'string[]', label: 'Bio', description: 'Lines describing the agent (a single string is accepted too)' },
  { key: 'system', type: 'text', label: 'System prompt', description: 'Instructions given to the model first, up to 10,000 characters' },
  { key: 'adjectives', type: 'string[]', label: 'Adjectives', description: 'Personality traits' },
  { key: 'topics', type: 'string[]', label: 'Topics', description: 'What the agent likes to talk about' },
  {
    key: 'style', type: 'object', label: 'Style', description: 'Style guidance by context',
    children: [
      { key: 'all', type: 'string[]', label: 'All' },
      { key: 'chat', type: 'string[]', label: 'Chat' },
      { key: 'post', type: 'string[]', label: 'Posts' },
    ],
  },
  { key: 'messageExamples', type: 'messageExamples', label: 'Chat examples', description: 'Example conversations: arrays of {name, content: {text}}' },
  { key: 'postExamples', type: 'string[]', label: 'Post examples' },
];
