import { errors, Type, type AgentRuntime, type PluginContext } from '../../sdk/index.ts';

const Model = Type.Object({ id: Type.String(), object: Type.Literal('model'), created: Type.Integer(), owned_by: Type.String() });

/** The agent name and the active model id, as model objects. */
function models(runtime: AgentRuntime) {
  const status = runtime.status();
  const created = Math.floor((status.startedAt ?? Date.now()) / 1000);
  const ids = [...new Set([status.agentName, ...(status.model === 'none' ? [] : [status.model])])];
  return ids.map((id) => ({ id, object: 'model' as const, created, owned_by: id === status.agentName ? 'svc' : status.provider }));
}

export function registerModels(ctx: PluginContext, runtime: AgentRuntime): void {
  ctx.route({
    method: 'GET', path: '/v1/models', tags: ['compat'], summary: 'Model list: the agent name and the active model id',
    schema: { response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(Model) }) } },
    handler: () => ({ object: 'list' as const, data: models(runtime) }),
  });
  ctx.route({
    method: 'GET', path: '/v1/models/:id', tags: ['compat'], summary: 'One model object (404 for other ids)',
    schema: { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }), response: { 200: Model } },
    handler({ params }) {
      const model = models(runtime).find((m) => m.id === params.id);
      if (!model) throw errors.notFound(`Model ${params.id} not found`);
      return model;
    },
  });
}
