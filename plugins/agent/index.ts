import {
  agentActions, agentEvaluators, agentMessages, agentModels, agentProviders, agentResets, agentRuntime, agentStatus, agentText,
  agentTrajectories, coreKernel, definePlugin, Type, type Action, type ContextProvider, type Evaluator, type ModelProvider, type ResetHook,
  createRegistry,
} from '../../sdk/index.ts';
import { AgentEventLog } from './event-log.ts';
import { createMessageStore } from './message-store.ts';
import { registerCharacterRoutes } from './routes-character.ts';
import { registerEventRoutes } from './routes-events.ts';
import { registerLifecycleRoutes } from './routes-lifecycle.ts';
import { AgentRuntimeService } from './runtime.ts';
import { createSettings, ensureAgentId, migrations } from './store.ts';
import { createTrajectoryRecorder } from './trajectory-recorder.ts';
import { createTrajectoryStore } from './trajectory-store.ts';
import { registerWebSocket } from './ws.ts';

/** The agent runtime: lifecycle, message pipeline, registries other plugins extend, character, events, trajectories. */
export default definePlugin({
  id: 'agent',
  version: '0.1.0',
  description: 'Agent runtime: lifecycle, message pipeline, actions/providers/evaluators/models registries, character, autonomy, agent events, trajectories',
  requires: [coreKernel],
  provides: [agentStatus, agentRuntime, agentText, agentActions, agentProviders, agentEvaluators, agentModels, agentMessages, agentResets, agentTrajectories],
  config: Type.Object({
    provider: Type.Optional(Type.String({ env: 'SVC_MODEL_PROVIDER', description: 'Model provider to use; default: the first registered non-offline provider, else offline' })),
    name: Type.String({ minLength: 1, maxLength: 100, default: 'Eliza', env: 'SVC_AGENT_NAME', description: 'Name of the default character' }),
    autoStart: Type.Boolean({ default: true, env: 'SVC_AGENT_AUTOSTART', description: 'Start the agent when the plugin loads' }),
    historyLimit: Type.Integer({ minimum: 0, maximum: 200, default: 20, description: 'Stored messages of a room sent as history' }),
    replyTimeoutMs: Type.Integer({ minimum: 100, default: 120_000, env: 'SVC_REPLY_TIMEOUT_MS', description: 'A reply (model call and actions) is aborted after this' }),
    providerTimeoutMs: Type.Integer({ minimum: 50, default: 5000, description: 'Each context provider gets this long; a late one is skipped' }),
    autonomyIntervalMs: Type.Integer({ minimum: 50, default: 60_000, env: 'SVC_AUTONOMY_INTERVAL_MS', description: 'Time between autonomy cycles' }),
    heartbeatMs: Type.Integer({ minimum: 50, default: 30_000, env: 'SVC_AGENT_HEARTBEAT_MS', description: 'Heartbeat agent event interval while running or paused' }),
    eventCapacity: Type.Integer({ minimum: 10, maximum: 100_000, default: 1000, env: 'SVC_AGENT_EVENT_CAPACITY', description: 'Agent events kept in the ring buffer' }),
  }),
  async setup(ctx) {
    const config = ctx.config.get();
    const db = await ctx.storage.sql({ migrations });
    const settings = createSettings(db);
    const agentId = await ensureAgentId(settings);
    const registries = {
      actions: createRegistry<Action>('action'),
      providers: createRegistry<ContextProvider>('context provider'),
      evaluators: createRegistry<Evaluator>('evaluator'),
      models: createRegistry<ModelProvider>('model provider'),
    };
    const resets = createRegistry<ResetHook>('reset hook');
    const messages = createMessageStore(db);
    const trajectories = createTrajectoryStore(db);
    const events = await AgentEventLog.open(db, config.eventCapacity, ctx.log);
    const runtime = await AgentRuntimeService.create({
      pipeline: { ...registries, messages, recorder: createTrajectoryRecorder(db, agentId, ctx.log) },
      settings, clearMessages: messages.clearAll, trajectories, events, resets, log: ctx.log,
      config: () => ({ ...ctx.config.get(), defaultName: ctx.config.get().name }),
      broadcast: (message) => ctx.ws.broadcast(message),
    }, agentId);
    ctx.track(() => runtime.dispose());

    ctx.provide(agentStatus, runtime);
    ctx.provide(agentRuntime, runtime);
    ctx.provide(agentText, runtime);
    ctx.provide(agentActions, registries.actions);
    ctx.provide(agentProviders, registries.providers);
    ctx.provide(agentEvaluators, registries.evaluators);
    ctx.provide(agentModels, registries.models);
    ctx.provide(agentMessages, messages);
    ctx.provide(agentResets, resets);
    ctx.provide(agentTrajectories, trajectories);

    registerWebSocket(ctx, runtime, events);
    registerLifecycleRoutes(ctx, runtime, registries);
    registerEventRoutes(ctx, events);
    registerCharacterRoutes(ctx, runtime);
    if (config.autoStart) runtime.start();
  },
});
