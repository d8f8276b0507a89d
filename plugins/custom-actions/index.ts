import { agentActions, agentText, coreAuth, coreSandbox, definePlugin, Type } from '../../sdk/index.ts';
import { createInvoker } from './invoke.ts';
import { registerRoutes } from './routes.ts';
import { createCustomActions } from './service.ts';
import { MIGRATIONS, createStore } from './store.ts';
import { authorizeTerminal } from './terminal-auth.ts';

/** Custom actions (http, shell, code handlers) the agent can invoke; shell and code run in `core.sandbox`. */
export default definePlugin({
  id: 'custom-actions',
  version: '0.1.0',
  requires: [coreAuth],
  // Without the agent, actions are stored and testable; without the sandbox, shell/code answer 503.
  optional: [agentActions, agentText, coreSandbox],
  config: Type.Object({
    terminalRunToken: Type.Optional(Type.String({ secret: true, env: 'SVC_TERMINAL_RUN_TOKEN', description: 'Required to create, update or test shell and code actions' })),
    fetchAllowedHosts: Type.String({
      default: '', env: 'SVC_FETCH_ALLOWED_HOSTS',
      description: 'Comma-separated host:port pairs the http handler and the code fetch may reach although private (a loopback test server). Empty in production.',
    }),
    codeTimeoutMs: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000, env: 'SVC_CODE_TIMEOUT_MS' }),
    codeMemoryMb: Type.Integer({ minimum: 8, maximum: 1024, default: 64 }),
  }),
  async setup(ctx) {
    const config = ctx.config.get();
    const store = createStore(await ctx.storage.sql({ migrations: MIGRATIONS }));
    const invoke = createInvoker(ctx, {
      allowedHosts: config.fetchAllowedHosts.split(',').map((host) => host.trim()).filter(Boolean),
      codeTimeoutMs: config.codeTimeoutMs, codeMemoryMb: config.codeMemoryMb,
    });
    const actions = createCustomActions(store, invoke, ctx.tryUse(agentActions));
    await actions.registerAll((action, error) => ctx.log.warn(`Custom action ${action.name} not registered with the agent: ${error.message}`));
    ctx.track(() => actions.unregisterAll());
    registerRoutes(ctx, actions, authorizeTerminal(ctx, ctx.use(coreAuth), config.terminalRunToken || undefined));
  },
});
