import { Compile } from 'typebox/compile';
import { errors, Type, type Static, type TSchema } from '../../sdk/index.ts';
import { fillPlaceholders } from './placeholders.ts';

const PARAM_NAME = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

export const Parameter = Type.Object({
  name: Type.String({ pattern: PARAM_NAME, description: 'Used as {{name}} and params.name' }),
  description: Type.String({ maxLength: 1000, default: '' }),
  required: Type.Boolean({ default: false }),
});

export const HttpHandler = Type.Object({
  type: Type.Literal('http'),
  method: Type.Union(HTTP_METHODS.map((m) => Type.Literal(m)), { default: 'GET' }),
  url: Type.String({ minLength: 1, maxLength: 4096, description: 'http(s); {{param}} values are URL-encoded' }),
  headers: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 8192 }), { description: '{{param}} values substituted raw' })),
  bodyTemplate: Type.Optional(Type.String({ maxLength: 100_000, description: '{{param}} values substituted raw' })),
}, { additionalProperties: false });

export const ShellHandler = Type.Object({
  type: Type.Literal('shell'),
  command: Type.String({ minLength: 1, maxLength: 10_000, description: 'sh command line; {{param}} values are passed quoted, never parsed' }),
  network: Type.Optional(Type.Boolean({ description: 'Allow network access inside the OS sandbox (default false)' })),
}, { additionalProperties: false });

export const CodeHandler = Type.Object({
  type: Type.Literal('code'),
  code: Type.String({ minLength: 1, maxLength: 100_000, description: 'Async function body; `params` and `fetch` are its only capabilities' }),
}, { additionalProperties: false });

export type HttpHandler = Static<typeof HttpHandler>;

export const Handler = Type.Union([HttpHandler, ShellHandler, CodeHandler]);
export type Handler = Static<typeof Handler>;
export type HandlerType = Handler['type'];

export const CustomAction = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String({ description: 'UPPER_SNAKE_CASE' }),
  description: Type.String(),
  similes: Type.Array(Type.String()),
  parameters: Type.Array(Parameter),
  handler: Handler,
  enabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type CustomAction = Static<typeof CustomAction>;
export type ActionParameter = Static<typeof Parameter>;

const variants: Record<HandlerType, ReturnType<typeof Compile<TSchema>>> = {
  http: Compile(HttpHandler), shell: Compile(ShellHandler), code: Compile(CodeHandler),
};

/**
 * Checks a submitted handler against its variant; every problem is 400 INVALID_HANDLER with details.
 * An http handler's url must be an absolute http(s) URL once placeholders are filled.
 */
export function parseHandler(raw: unknown): Handler {
  const type = (raw as { type?: unknown } | undefined)?.type;
  if (typeof type !== 'string' || !(type in variants)) {
    throw errors.badRequest('Invalid or missing handler type: use http, shell or code', undefined, 'INVALID_HANDLER');
  }
  const validator = variants[type as HandlerType];
  const candidate = validator.Default(structuredClone(raw));
  if (!validator.Check(candidate)) {
    const details = [...validator.Errors(candidate)].slice(0, 20).map((e) => ({ path: `handler${e.instancePath}`, message: e.message }));
    throw errors.badRequest(`Invalid ${type} handler: ${details[0]!.path} ${details[0]!.message}`, details, 'INVALID_HANDLER');
  }
  const handler = candidate as Handler;
  if (handler.type === 'http') assertHttpUrl(handler.url);
  return handler;
}

function assertHttpUrl(template: string): void {
  let url: URL | undefined;
  try { url = new URL(fillPlaceholders(template, {}, () => 'x')); } catch { /* reported below */ }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw errors.badRequest('Invalid http handler: url must be an absolute http or https URL', [{ path: 'handler/url', message: 'not an http(s) URL' }], 'INVALID_HANDLER');
  }
}

/** "check weather", "checkWeather", "check-weather" → "CHECK_WEATHER". */
export function toUpperSnake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}
