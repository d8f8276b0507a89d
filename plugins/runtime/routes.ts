import { agentStatus, Type, type KernelInfo, type PluginContext } from '../../sdk/index.ts';
import { buildOpenApi } from './openapi.ts';

const Health = Type.Object({
  ready: Type.Boolean(),
  runtime: Type.Union([Type.Literal('ok'), Type.Literal('not_initialized')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  plugins: Type.Object({ loaded: Type.Integer(), failed: Type.Integer() }),
  connectors: Type.Record(Type.String(), Type.String()),
  uptime: Type.Number({ description: 'Seconds since the kernel started' }),
  agentState: Type.String(),
});

const Runtime = Type.Object({
  plugins: Type.Array(Type.Object({ id: Type.String(), version: Type.String(), state: Type.String(), error: Type.Optional(Type.String()) })),
  services: Type.Array(Type.String()),
  capabilities: Type.Record(Type.String(), Type.Boolean()),
  routes: Type.Integer(),
});

export function registerRoutes(ctx: PluginContext, kernel: KernelInfo): void {
  ctx.route({
    method: 'GET', path: '/api/openapi.json', summary: 'OpenAPI 3.1 document of every loaded route', tags: ['runtime'],
    handler: () => buildOpenApi(kernel.routes(), kernel.version),
  });

  ctx.route({
    method: 'GET', path: '/api/health', summary: 'Structured health: runtime, database (probed), plugins, readiness', tags: ['runtime'],
    schema: { response: { 200: Health } },
    async handler() {
      const plugins = kernel.plugins();
      const database = (await kernel.probeStorage()) ? 'ok' : 'error';
      const agent = ctx.tryUse(agentStatus);
      const agentState = agent?.state() ?? 'not_started';
      return {
        ready: kernel.phase() === 'running' && database === 'ok',
        runtime: agent ? 'ok' : 'not_initialized',
        database,
        plugins: { loaded: plugins.filter((p) => p.state === 'active').length, failed: plugins.filter((p) => p.state === 'failed').length },
        connectors: {},
        uptime: Math.round((Date.now() - kernel.startedAt) / 1000),
        agentState,
      };
    },
  });

  ctx.route({
    method: 'GET', path: '/api/runtime', summary: 'Loaded plugins, services and capabilities (never secrets)', tags: ['runtime'],
    schema: { response: { 200: Runtime } },
    handler() {
      const services = kernel.services();
      return {
        plugins: kernel.plugins().map(({ id, version, state, error }) => ({ id, version, state, ...(error && { error }) })),
        services,
        capabilities: {
          http: true, websocket: true, hotReload: true, openapi: true,
          sandbox: services.includes('core.sandbox'), agent: services.includes('agent.status'),
        },
        routes: kernel.routes().length,
      };
    },
  });
}
