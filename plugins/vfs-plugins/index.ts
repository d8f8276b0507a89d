import { coreSandbox, corePlugins, definePlugin, errors, Type, vfsProjects } from '../../sdk/index.ts';
import { createGuestRegistry, vfsPluginRegistry } from './registry.ts';
import { registerVfsPluginRoutes } from './routes.ts';
import { createVfsPlugins } from './service.ts';
import { createLoadedStore, migrations } from './store.ts';

/** Compiles VFS projects into plugins and runs them in isolates as ordinary kernel plugins (`vfs-<id>`). */
export default definePlugin({
  id: 'vfs-plugins',
  version: '0.1.0',
  description: 'Workbench VFS plugins: compile a project with esbuild, load it into an isolate, serve its routes and actions',
  requires: [vfsProjects, corePlugins],
  // Without the sandbox, compile and load answer 503. Guest plugins use the agent's actions themselves.
  optional: [coreSandbox],
  provides: [vfsPluginRegistry],
  config: Type.Object({
    memoryMb: Type.Integer({ minimum: 8, maximum: 1024, default: 64, env: 'SVC_VFS_PLUGIN_MEMORY_MB', description: 'Heap limit of each plugin\'s isolate' }),
    callTimeoutMs: Type.Integer({ minimum: 50, maximum: 60_000, default: 5000, env: 'SVC_VFS_PLUGIN_TIMEOUT_MS', description: 'Deadline of each route or action call; past it the isolate is killed' }),
    syncBudgetMs: Type.Integer({
      minimum: 0, maximum: 1000, default: 200, env: 'SVC_VFS_PLUGIN_SYNC_BUDGET_MS',
      description: 'A plugin without the fetch capability has its calls started on the server thread (about 4x faster than a hop to its isolate); a handler may compute this long before its first wait, else the plugin is stopped. 0: every call on the isolate\'s thread',
    }),
    setupTimeoutMs: Type.Integer({ minimum: 50, maximum: 60_000, default: 5000, env: 'SVC_VFS_PLUGIN_SETUP_TIMEOUT_MS', description: 'Deadline for evaluating a plugin and running its setup' }),
    maxPlugins: Type.Integer({ minimum: 1, maximum: 200, default: 20, env: 'SVC_VFS_PLUGINS_MAX', description: 'VFS plugins loaded at once' }),
    fetchAllowedHosts: Type.String({
      default: '', env: 'SVC_FETCH_ALLOWED_HOSTS',
      description: 'Comma-separated host:port pairs a plugin\'s fetch may reach although private (a loopback test server). Empty in production.',
    }),
  }),
  async setup(ctx) {
    const config = ctx.config.get();
    const loaded = createLoadedStore(await ctx.storage.sql({ migrations }));
    const host = ctx.use(corePlugins);
    const sandbox = () => {
      const service = ctx.tryUse(coreSandbox);
      if (!service) throw errors.unavailable('The sandbox is not running, so VFS plugins cannot be compiled or loaded (see the server log)');
      return service;
    };
    // A guest killed for misbehaving is not loaded again at the next start.
    const entries = createGuestRegistry({ host, audit: (entry) => ctx.audit(entry), log: ctx.log, onKilled: (guestId) => loaded.remove(guestId) });
    ctx.provide(vfsPluginRegistry, entries.registry);
    const plugins = createVfsPlugins({
      vfs: ctx.use(vfsProjects), host, entries, loaded, sandbox, log: ctx.log, audit: (entry) => ctx.audit(entry),
      limits: {
        memoryMb: config.memoryMb, timeoutMs: config.callTimeoutMs, setupTimeoutMs: config.setupTimeoutMs, syncBudgetMs: config.syncBudgetMs, maxPlugins: config.maxPlugins,
        fetchAllowedHosts: config.fetchAllowedHosts.split(',').map((host) => host.trim()).filter(Boolean),
      },
    });
    registerVfsPluginRoutes(ctx, plugins);
    // After setup, not inside it: loading goes through the kernel's lifecycle queue, which runs this setup.
    ctx.setTimeout(() => {
      plugins.restore(ctx.signal).catch((error: Error) => { if (!ctx.signal.aborted) ctx.log.warn(`Loading VFS plugins again failed: ${error.message}`); });
    }, 0);
  },
});
