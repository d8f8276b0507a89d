import { coreKernel, Type, type AuditSeverity, type PluginContext } from '../../sdk/index.ts';
import type { PipelineDeps } from './pipeline.ts';
import type { AgentRuntimeService } from './runtime.ts';
import { Autonomy, Status, statusBody } from './status-schema.ts';

interface Operation {
  name: string;
  path: string | string[];
  summary: string;
  description: string;
  sensitive?: boolean;
  run(runtime: AgentRuntimeService): void | Promise<void>;
}

const OPERATIONS: Operation[] = [
  { name: 'start', path: '/api/agent/start', summary: 'Start the agent', description: 'Allowed from not_started, stopped or error (409 INVALID_STATE otherwise). Autonomy resumes when it is enabled.', run: (r) => r.start() },
  { name: 'stop', path: '/api/agent/stop', summary: 'Stop the agent and disable autonomy', description: 'In-flight replies end with an error; chat and /v1 answer 503 until started. Allowed from running, paused or error.', run: (r) => r.stop() },
  { name: 'pause', path: '/api/agent/pause', summary: 'Pause the agent (uptime kept, autonomy off)', description: 'Allowed from running. Chat and /v1 answer 503 while paused.', run: (r) => r.pause() },
  { name: 'resume', path: '/api/agent/resume', summary: 'Resume a paused agent', description: 'Allowed from paused. Autonomy is re-enabled when the pause disabled it (it stays off when it was off before).', run: (r) => r.resume() },
  {
    name: 'restart', path: ['/api/agent/restart', '/api/restart'], summary: 'Restart the agent runtime in-process',
    description: 'restarting → running without exiting the process: in-flight replies end, character and settings are read again, pending restart reasons clear.',
    run: (r) => r.restart(),
  },
  {
    name: 'reset', path: '/api/agent/reset', sensitive: true, summary: 'Wipe the agent and restart on defaults (sensitive)',
    description: 'Deletes the character, autonomy setting, all room messages, trajectories, and the data of every reset hook (conversations, memories, knowledge documents, workbench tasks and todos, triggers); VFS projects are user code and stay (delete them explicitly). The agent id and the event log (ids stay monotonic) are kept. Loopback without a token when none is configured; otherwise the API token.',
    run: (r) => r.reset(),
  },
];

export type Registries = Pick<PipelineDeps, 'models' | 'actions' | 'providers' | 'evaluators'>;

export function registerLifecycleRoutes(ctx: PluginContext<any>, runtime: AgentRuntimeService, registries: Registries): void {
  ctx.route({
    method: 'GET', path: '/api/status', tags: ['agent'], summary: 'Agent status: state, name, model, uptime, autonomy, pending restart',
    description: 'Both spec shapes in one object: state/status and agentName/name carry the same values.',
    schema: { response: { 200: Status } },
    handler: () => statusBody(runtime),
  });

  for (const op of OPERATIONS) {
    ctx.route({
      method: 'POST', path: op.path, tags: ['agent'], access: op.sensitive ? 'sensitive' : 'token', summary: op.summary, description: op.description,
      schema: { response: { 200: Type.Object({ ok: Type.Literal(true), status: Status }) } },
      async handler({ ip }) {
        const from = runtime.state();
        await op.run(runtime);
        const severity: AuditSeverity = op.sensitive ? 'warn' : 'info';
        ctx.audit({ type: 'privileged_capability_invocation', severity, summary: `Agent ${op.name}: ${from} → ${runtime.state()}`, metadata: { operation: op.name, ip } });
        return { ok: true as const, status: statusBody(runtime) };
      },
    });
  }

  ctx.route({
    method: 'GET', path: '/api/agent/self-status', tags: ['agent'], summary: 'What the agent can do now: state, model, plugins, capabilities',
    description: 'wallet and shellEnabled report absent until wallet and permission plugins are loaded.',
    schema: {
      response: {
        200: Type.Object({
          generatedAt: Type.String({ format: 'date-time' }), state: Type.String(), agentName: Type.String(), model: Type.String(), provider: Type.String(),
          shellEnabled: Type.Boolean(),
          wallet: Type.Object({ hasWallet: Type.Boolean(), evmAddress: Type.Union([Type.String(), Type.Null()]), solanaAddress: Type.Union([Type.String(), Type.Null()]) }),
          plugins: Type.Object({ totalActive: Type.Integer(), active: Type.Array(Type.String()) }),
          capabilities: Type.Object({
            actions: Type.Array(Type.String()), contextProviders: Type.Array(Type.String()), evaluators: Type.Array(Type.String()),
            modelProviders: Type.Array(Type.String()), autonomy: Type.Boolean(), knowledge: Type.Boolean(), memory: Type.Boolean(),
          }),
        }),
      },
    },
    handler() {
      const status = runtime.status();
      const active = ctx.use(coreKernel).plugins().filter((p) => p.state === 'active').map((p) => p.id);
      const providers = registries.providers.list().map((p) => p.name);
      return {
        generatedAt: new Date().toISOString(), state: status.state, agentName: status.agentName, model: status.model, provider: status.provider,
        shellEnabled: false, wallet: { hasWallet: false, evmAddress: null, solanaAddress: null },
        plugins: { totalActive: active.length, active },
        capabilities: {
          actions: registries.actions.list().map((a) => a.name), contextProviders: providers, evaluators: registries.evaluators.list().map((e) => e.name),
          modelProviders: registries.models.list().map((m) => m.name), autonomy: status.autonomy.enabled,
          knowledge: providers.includes('knowledge'), memory: providers.includes('memory'),
        },
      };
    },
  });

  ctx.route({
    method: 'GET', path: '/api/agent/autonomy', tags: ['agent'], summary: 'Whether autonomy is enabled and thinking',
    schema: { response: { 200: Autonomy } },
    handler: () => runtime.autonomyStatus(),
  });
  ctx.route({
    method: 'POST', path: '/api/agent/autonomy', tags: ['agent'], summary: 'Enable or disable autonomy',
    description: 'Persisted. The loop runs one thinking cycle per autonomyIntervalMs while the agent is running; each cycle emits agent events (start, thought or error, end). Returns the same shape as GET.',
    schema: { body: Type.Object({ enabled: Type.Boolean() }), response: { 200: Autonomy } },
    async handler({ body, ip }) {
      await runtime.setAutonomy(body.enabled);
      ctx.audit({ type: 'privileged_capability_invocation', severity: 'info', summary: `Autonomy ${body.enabled ? 'enabled' : 'disabled'}`, metadata: { ip } });
      return runtime.autonomyStatus();
    },
  });
}
