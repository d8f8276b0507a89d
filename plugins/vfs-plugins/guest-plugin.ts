import {
  agentActions, coreSandbox, definePlugin, guestFetch, reply, Type, type Action, type GuestActionResult, type GuestRouteResult,
  type Logger, type LogLevel, type ModuleCapabilities, type PluginDef, type RouteDef, type SandboxModule,
} from '../../sdk/index.ts';
import { pluginIdOf, vfsPluginRegistry, type GuestSource } from './registry.ts';

/** Every guest route is mounted below this and its own id, so no guest can take a path of the server's. */
export const GUEST_ROUTE_PREFIX = '/api/vfs-plugins';
const LEVELS = new Set<LogLevel>(['debug', 'info', 'warn', 'error']);
const MAX_LOG_CHARS = 2000;

/** A guest's capabilities: its log lines go to `target.logger` (switched to the guest plugin's own once it runs). */
export function guestCapabilities(fetchAllowedHosts: string[], target: { logger: Logger }): ModuleCapabilities {
  return {
    log: ([level, message]) => {
      if (!LEVELS.has(level as LogLevel) || typeof message !== 'string') throw new TypeError('log(level, message)');
      target.logger[level as LogLevel](message.slice(0, MAX_LOG_CHARS), { tags: ['vfs-plugin'] });
    },
    fetch: guestFetch(fetchAllowedHosts),
  };
}

/**
 * The kernel plugin `vfs-<guestId>` that serves a guest: its routes (token access, the guest's schemas)
 * under /api/vfs-plugins/<guestId>, its actions in the agent's registry. `first` is the module already
 * loaded to read the guest's id; a later setup (the kernel sets plugins up again when a provider
 * reloads) loads the same code into a fresh isolate. `discard` disposes `first` if no setup took it.
 */
export function guestPlugin(source: GuestSource, first: SandboxModule, target: { logger: Logger }): { def: PluginDef<any>; discard(): void } {
  let pending: SandboxModule | undefined = first;
  const { guestId, projectId, entry } = source;
  const def = definePlugin({
    id: pluginIdOf(guestId),
    version: first.manifest.version,
    description: `VFS plugin "${guestId}" from project "${projectId}" (${entry}), running in an isolate`,
    requires: [vfsPluginRegistry, coreSandbox],
    optional: [agentActions],
    // The module has its own setup deadline; the kernel's must not fire first.
    setupTimeoutMs: source.settings.setupTimeoutMs + 5000,
    async setup(ctx) {
      const registry = ctx.use(vfsPluginRegistry);
      target.logger = ctx.log;
      let module = pending;
      pending = undefined;
      if (!module) {
        try {
          module = await ctx.use(coreSandbox).loadModule({ ...source.settings, code: source.code, caps: guestCapabilities(source.settings.fetchAllowedHosts, target) });
        } catch (error) {
          registry.fail(source, def.version, (error as Error).message);
          throw error;
        }
      }
      try {
        ctx.track(() => module.dispose());
      } catch (error) {
        module.dispose();
        throw error;
      }
      const prefix = `${GUEST_ROUTE_PREFIX}/${guestId}`;
      const routes = module.manifest.routes.map((route) => guestRoute(module, route, prefix));
      for (const route of routes) ctx.route(route);
      const actions = ctx.tryUse(agentActions);
      if (actions) for (const action of module.manifest.actions) ctx.track(actions.add(guestAction(module, action)));
      registry.attach(source, module, routes.map((r) => ({ method: r.method, path: r.path as string })));
    },
  });
  return { def, discard: () => { pending?.dispose(); pending = undefined; } };
}

function guestRoute(module: SandboxModule, route: SandboxModule['manifest']['routes'][number], prefix: string): RouteDef {
  const { id } = module.manifest;
  // Without a body schema the kernel would not read the body: methods that carry one accept any JSON.
  const body = route.schema.body ?? (route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH' ? Type.Unknown() : undefined);
  return {
    method: route.method,
    path: route.path === '/' ? prefix : prefix + route.path,
    access: 'token',
    summary: route.summary ?? `${route.method} ${route.path} of VFS plugin ${id}`,
    description: [route.description, `Served by the VFS plugin "${id}" in an isolate. The kernel validates with the plugin's schemas; patterns, most formats and other keywords it cannot check in linear time are checked inside the isolate.`].filter(Boolean).join('\n\n'),
    tags: [`vfs-plugin:${id}`],
    schema: { ...route.schema, ...(body && { body }) },
    async handler(request) {
      const result: GuestRouteResult = await module.call(route.handler, {
        method: request.method, path: request.path, params: request.params, query: request.query, body: request.body,
      });
      return reply(result.status, result.body);
    },
  };
}

function guestAction(module: SandboxModule, action: SandboxModule['manifest']['actions'][number]): Action {
  return {
    name: action.name, description: action.description, similes: action.similes, parameters: action.parameters,
    handler: (params, context): Promise<GuestActionResult> => module.call(action.handler, { params, text: context.text, roomId: context.roomId }),
  };
}
