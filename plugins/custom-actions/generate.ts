import { Compile } from 'typebox/compile';
import { HttpError, Type, type Static, type TextGenerator } from '../../sdk/index.ts';
import { Parameter, parseHandler, toUpperSnake, type Handler } from './schema.ts';

const SYSTEM_PROMPT = `You design custom actions for an AI agent. Reply with exactly one JSON object and nothing else:
{"name": "UPPER_SNAKE_CASE_NAME", "description": "what it does and when to use it",
 "handlerType": "http" | "shell" | "code", "handler": {...},
 "parameters": [{"name": "paramName", "description": "...", "required": true}]}
Handler shapes:
- http: {"type": "http", "method": "GET", "url": "https://...", "headers": {...}, "bodyTemplate": "..."}
- shell: {"type": "shell", "command": "..."}
- code: {"type": "code", "code": "async function body; use params.<name>; fetch(url) returns {status, headers, text}; return the result"}
Write {{paramName}} where a parameter value goes in urls, header values, body templates and commands.
Prefer http or code; use shell only when nothing else can do it.`;

const Suggestion = Compile(Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.String({ minLength: 1, maxLength: 2000 }),
  handlerType: Type.Optional(Type.String()),
  handler: Type.Unknown(),
  parameters: Type.Array(Parameter, { default: [], maxItems: 50 }),
}));

export interface Generated { name: string; description: string; handlerType: Handler['type']; handler: Handler; parameters: Static<typeof Parameter>[] }

const unusable = (message: string, details?: unknown[]) =>
  new HttpError(502, 'GENERATION_FAILED', `The model's suggestion is unusable: ${message}`, details);

/** Asks the active model for an action definition and returns it only if it passes the handler schema. */
export async function suggestAction(text: TextGenerator, prompt: string, signal: AbortSignal): Promise<Generated> {
  const answer = await text.generate({ system: SYSTEM_PROMPT, prompt, purpose: 'custom-action-generate', signal });
  const json = answer.slice(answer.indexOf('{'), answer.lastIndexOf('}') + 1);
  let parsed: unknown;
  try { parsed = JSON.parse(json); } catch { throw unusable('no JSON object in the answer'); }
  const candidate = Suggestion.Default(parsed);
  if (!Suggestion.Check(candidate)) {
    const details = [...Suggestion.Errors(candidate)].slice(0, 20).map((e) => ({ path: e.instancePath, message: e.message }));
    throw unusable(`${details[0]?.path || '/'} ${details[0]?.message}`, details);
  }
  let handler: Handler;
  try { handler = parseHandler(candidate.handler); } catch (error) {
    throw unusable((error as Error).message, HttpError.is(error) ? error.details : undefined);
  }
  if (candidate.handlerType !== undefined && candidate.handlerType !== handler.type) {
    throw unusable(`handlerType "${candidate.handlerType}" does not match handler.type "${handler.type}"`);
  }
  const name = toUpperSnake(candidate.name);
  if (!name) throw unusable('the name has no letters or digits');
  return { name, description: candidate.description, handlerType: handler.type, handler, parameters: candidate.parameters };
}
