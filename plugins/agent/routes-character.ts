import { errors, Type, type PluginContext } from '../../sdk/index.ts';
import { Character, CHARACTER_FIELDS, randomName, validateCharacterPatch, type SchemaField } from './character.ts';
import type { AgentRuntimeService } from './runtime.ts';

const GENERATABLE = ['bio', 'system', 'style', 'chatExamples', 'messageExamples', 'postExamples', 'adjectives', 'topics'] as const;
type Generatable = (typeof GENERATABLE)[number];

/** What to ask the model for each field; the answer is returned as text for the user to review. */
const INSTRUCTIONS: Record<Generatable, string> = {
  bio: 'Write a short bio for the agent: 2 to 4 lines, one fact per line.',
  system: 'Write a system prompt for the agent: who it is and how it should answer, in 2 to 4 sentences.',
  style: 'Write 3 to 5 style rules for how the agent writes, one per line.',
  chatExamples: 'Write 2 short example exchanges, lines of the form "User: …" and "<agent name>: …".',
  messageExamples: 'Write 2 short example exchanges, lines of the form "User: …" and "<agent name>: …".',
  postExamples: 'Write 3 short social media posts by the agent, one per line.',
  adjectives: 'List 5 adjectives describing the agent\'s personality, one per line.',
  topics: 'List 5 topics the agent likes to talk about, one per line.',
};

const fieldProperties = { key: Type.String(), type: Type.String(), label: Type.String(), description: Type.Optional(Type.String()) };
const SchemaFieldBody = Type.Object({ ...fieldProperties, children: Type.Optional(Type.Array(Type.Object(fieldProperties))) });

export function registerCharacterRoutes(ctx: PluginContext<any>, runtime: AgentRuntimeService): void {
  const CharacterBody = Type.Object({ character: Character, agentName: Type.String() });

  ctx.route({
    method: 'GET', path: '/api/character', tags: ['character'], summary: 'The current character',
    schema: { response: { 200: CharacterBody } },
    handler: () => ({ character: runtime.character(), agentName: runtime.agentName() }),
  });

  ctx.route({
    method: 'PUT', path: '/api/character', tags: ['character'], summary: 'Update character fields (validated, persisted, applied to the next reply)',
    description: 'Body: any subset of the character fields (see GET /api/character/schema); unknown fields are refused. '
      + 'Invalid input → 400 INVALID_REQUEST with {ok: false, error, code, validationErrors: [{path, message}]} (the reference used 422).',
    schema: {
      body: Type.Record(Type.String(), Type.Unknown(), { description: 'Partial character' }),
      response: { 200: Type.Object({ ok: Type.Literal(true), character: Character, agentName: Type.String() }) },
    },
    async handler({ body }) {
      const checked = validateCharacterPatch(body);
      if (!checked.ok) {
        const first = checked.errors[0]!;
        throw errors.http(400, 'INVALID_REQUEST', `Invalid character: ${first.path} ${first.message}`, { ok: false, validationErrors: checked.errors });
      }
      const character = await runtime.updateCharacter(checked.patch);
      return { ok: true as const, character, agentName: character.name };
    },
  });

  ctx.route({
    method: 'GET', path: '/api/character/schema', tags: ['character'], summary: 'Character fields for rendering a form',
    schema: { response: { 200: Type.Object({ fields: Type.Array(SchemaFieldBody) }) } },
    handler: (): { fields: SchemaField[] } => ({ fields: CHARACTER_FIELDS }),
  });

  ctx.route({
    method: 'GET', path: '/api/character/random-name', tags: ['character'], summary: 'A random agent name',
    schema: { response: { 200: Type.Object({ name: Type.String() }) } },
    handler: () => ({ name: randomName() }),
  });

  ctx.route({
    method: 'POST', path: '/api/character/generate', tags: ['character'], summary: 'Generate a character field with the active model',
    description: 'field: bio, system, style, chatExamples (= messageExamples), postExamples, adjectives or topics. context: extra guidance. '
      + 'mode append asks for additions to the current value, replace (default) for a new one. Returns text to review; nothing is saved. '
      + 'Recorded as a trajectory (source generate, purpose character-generate:<field>). 503 when the agent is not running.',
    schema: {
      body: Type.Object({
        field: Type.Enum(GENERATABLE),
        context: Type.Optional(Type.String({ maxLength: 4000 })),
        mode: Type.Union([Type.Literal('replace'), Type.Literal('append')], { default: 'replace' }),
      }),
      response: { 200: Type.Object({ generated: Type.String() }) },
    },
    async handler({ body, signal }) {
      const character = runtime.character();
      const current = body.mode === 'append' ? `\nCurrent value, to add to rather than repeat:\n${JSON.stringify(character[body.field === 'chatExamples' ? 'messageExamples' : body.field])}` : '';
      const prompt = `${INSTRUCTIONS[body.field].replace('<agent name>', character.name)}\nThe agent is called ${character.name}.${body.context ? `\nGuidance: ${body.context}` : ''}${current}`;
      return { generated: await runtime.generate({ prompt, purpose: `character-generate:${body.field}`, signal }) };
    },
  });
}
