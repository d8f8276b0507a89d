import { agentText, errors, reply, Type, type PluginContext } from '../../sdk/index.ts';
import { suggestAction } from './generate.ts';
import { CustomAction, Handler, Parameter, parseHandler } from './schema.ts';
import type { CustomActionsService } from './service.ts';
import type { TerminalCheck } from './terminal-auth.ts';

const TAGS = ['custom-actions'];
const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const TerminalToken = Type.Optional(Type.String({ maxLength: 1000, description: 'SVC_TERMINAL_RUN_TOKEN, for shell and code handlers when it is configured' }));
/** Loose here so that a bad handler answers 400 INVALID_HANDLER from `parseHandler`; the exact variants are in `Handler`. */
const HandlerInput = Type.Object({ type: Type.Optional(Type.String({ description: 'http | shell | code' })) }, {
  description: 'One of {type: "http", method, url, headers?, bodyTemplate?} | {type: "shell", command, network?} | {type: "code", code} (see the CustomAction response schema)',
});
const Name = Type.String({ minLength: 1, maxLength: 100, description: 'Stored in UPPER_SNAKE_CASE ("check weather" → CHECK_WEATHER)' });
const Description = Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' });
const Similes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, description: 'Alternative names' });
const Parameters = Type.Array(Parameter, { maxItems: 50 });
const ActionReply = Type.Object({ ok: Type.Literal(true), action: CustomAction });
const RunReply = Type.Object({
  ok: Type.Boolean(), output: Type.String(), error: Type.Optional(Type.String()), durationMs: Type.Number(),
  exitCode: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'shell handlers only' })),
  sandboxed: Type.Optional(Type.Boolean({ description: 'shell handlers only: the command ran inside bubblewrap' })),
});
const CONFLICT_NOTE = '409 when another action (custom or the agent\'s) already has the name.';

export function registerRoutes(ctx: PluginContext<any>, actions: CustomActionsService, authorize: TerminalCheck): void {
  ctx.route({
    method: 'GET', path: '/api/custom-actions', tags: TAGS,
    summary: 'Every custom action, oldest first',
    schema: { response: { 200: Type.Object({ actions: Type.Array(CustomAction) }) } },
    handler: async () => ({ actions: await actions.list() }),
  });

  ctx.route({
    method: 'POST', path: '/api/custom-actions', tags: TAGS,
    summary: 'Create a custom action; registered into the running agent at once when enabled',
    description: `201 {ok, action}. 400 INVALID_REQUEST for a missing name/description or duplicate parameter names; 400 INVALID_HANDLER for a missing or unknown handler type, an http handler without an http(s) url, shell without command, code without code; 403 TERMINAL_AUTH_REQUIRED for shell/code handlers without the terminal token when SVC_TERMINAL_RUN_TOKEN is configured. ${CONFLICT_NOTE}`,
    schema: {
      body: Type.Object({
        name: Name, description: Description, similes: Type.Optional(Similes), parameters: Type.Optional(Parameters),
        handler: HandlerInput, enabled: Type.Boolean({ default: true }), terminalToken: TerminalToken,
      }),
      response: { 201: ActionReply },
    },
    async handler(request) {
      const { body } = request;
      const handler = parseHandler(body.handler);
      authorize(request, body.terminalToken, handler.type, 'create');
      const action = await actions.create({
        name: body.name, description: body.description, similes: body.similes ?? [], parameters: body.parameters ?? [], handler, enabled: body.enabled,
      });
      ctx.audit({ type: 'policy_decision', summary: `Custom ${handler.type} action ${action.name} created`, metadata: { id: action.id, name: action.name, handlerType: handler.type } });
      return reply(201, { ok: true, action });
    },
  });

  ctx.route({
    method: 'POST', path: '/api/custom-actions/generate', tags: TAGS,
    summary: 'Ask the active model for a custom action suggestion (not saved)',
    description: '{ok, generated: {name, description, handlerType, handler, parameters}}; the suggestion is checked against the handler schema first. 400 missing prompt; 503 when no agent runtime provides text generation; 502 GENERATION_FAILED when the model answers with something that is not a valid action.',
    schema: {
      body: Type.Object({ prompt: Type.String({ minLength: 1, maxLength: 4000, pattern: '\\S' }) }),
      response: {
        200: Type.Object({
          ok: Type.Literal(true),
          generated: Type.Object({ name: Type.String(), description: Type.String(), handlerType: Type.String(), handler: Handler, parameters: Type.Array(Parameter) }),
        }),
      },
    },
    async handler({ body, signal }) {
      const text = ctx.tryUse(agentText);
      if (!text) throw errors.unavailable('Agent runtime not available: no model to generate with');
      return { ok: true, generated: await suggestAction(text, body.prompt, signal) };
    },
  });

  ctx.route({
    method: 'PUT', path: '/api/custom-actions/:id', tags: TAGS,
    summary: 'Update any subset of a custom action\'s fields; the running agent sees the change at once',
    description: `{ok, action}. A new handler replaces the old one whole. Enabling registers the action with the agent, disabling removes it. 400 INVALID_HANDLER for an invalid handler; 403 TERMINAL_AUTH_REQUIRED when the resulting handler is shell or code and the terminal token is configured but missing; 404 unknown id. ${CONFLICT_NOTE}`,
    schema: {
      params: Id,
      body: Type.Object({
        name: Type.Optional(Name), description: Type.Optional(Description), similes: Type.Optional(Similes), parameters: Type.Optional(Parameters),
        handler: Type.Optional(HandlerInput), enabled: Type.Optional(Type.Boolean()), terminalToken: TerminalToken,
      }),
      response: { 200: ActionReply },
    },
    async handler(request) {
      const { body, params } = request;
      const existing = await actions.get(params.id);
      const handler = body.handler === undefined ? existing.handler : parseHandler(body.handler);
      authorize(request, body.terminalToken, handler.type, 'update');
      const action = await actions.update(existing, { ...body, handler });
      ctx.audit({ type: 'policy_decision', summary: `Custom ${handler.type} action ${action.name} updated`, metadata: { id: action.id, name: action.name, enabled: action.enabled } });
      return { ok: true, action };
    },
  });

  ctx.route({
    method: 'DELETE', path: '/api/custom-actions/:id', tags: TAGS,
    summary: 'Delete a custom action and remove it from the running agent',
    description: '{ok}. 404 unknown id.',
    schema: { params: Id, response: { 200: Type.Object({ ok: Type.Literal(true) }) } },
    async handler({ params }) {
      await actions.remove(params.id);
      ctx.audit({ type: 'policy_decision', summary: `Custom action ${params.id} deleted`, metadata: { id: params.id } });
      return { ok: true };
    },
  });

  ctx.route({
    method: 'POST', path: '/api/custom-actions/:id/test', tags: TAGS,
    summary: 'Run a custom action\'s handler directly (not through the agent) with the given parameters',
    description: '200 {ok: true, output, durationMs} or 200 {ok: false, output, error, durationMs} when the handler fails (non-2xx response, refused URL, non-zero exit, timeout, thrown error). Parameter values are passed as strings. 400 missing required parameter; 403 TERMINAL_AUTH_REQUIRED (shell/code without the configured terminal token) or SHELL_DISABLED (shell permission off); 404 unknown id; 503 when the sandbox is not running (shell/code).',
    schema: {
      params: Id,
      body: Type.Object({
        params: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
        terminalToken: TerminalToken,
      }, { default: {} }),
      response: { 200: RunReply },
    },
    async handler(request) {
      const { body, params, signal } = request;
      const action = await actions.get(params.id);
      authorize(request, body.terminalToken, action.handler.type, 'test');
      const values = Object.fromEntries(Object.entries(body.params ?? {}).map(([name, value]) => [name, String(value)]));
      return actions.test(action, values, signal);
    },
  });
}
