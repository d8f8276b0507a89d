import { createToken, type AuditInput, type Logger, type PluginHost, type SandboxModule } from '../../sdk/index.ts';

/** Everything needed to (re)load one guest: the kernel may set its plugin up again at any time. */
export interface GuestSource {
  guestId: string;
  projectId: string;
  entry: string;
  code: string;
  loadedAt: number;
  settings: { memoryMb: number; timeoutMs: number; setupTimeoutMs: number; syncBudgetMs: number; fetchAllowedHosts: string[] };
}

/** A VFS plugin as the API lists it. */
export interface VfsPluginView {
  pluginName: string;
  /** The kernel plugin id (`vfs-<pluginName>`), as /api/runtime lists it. */
  pluginId: string;
  projectId: string;
  version: string;
  routes: { method: string; path: string }[];
  actions: string[];
  loadedAt: number;
  state: string;
  error?: string;
}

interface Entry {
  source: Pick<GuestSource, 'guestId' | 'projectId' | 'loadedAt'>;
  version: string;
  routes: { method: string; path: string }[];
  actions: string[];
  failed?: string;
  module?: SandboxModule;
}

/** What a guest's kernel plugin reports to vfs-plugins each time it is set up. */
export interface GuestRegistry {
  /** The guest is live with this module; its death (deadline, memory…) marks it failed and unloads it. */
  attach(source: GuestSource, module: SandboxModule, routes: { method: string; path: string }[]): void;
  /** The guest could not be (re)loaded. */
  fail(source: Pick<GuestSource, 'guestId' | 'projectId' | 'loadedAt'>, version: string, error: string): void;
}
/** Provided by vfs-plugins; every guest plugin requires it, so the kernel sets guests up again after it. */
export const vfsPluginRegistry = createToken<GuestRegistry>('vfs-plugins.registry');

export const pluginIdOf = (guestId: string) => `vfs-${guestId}`;
/** Failed entries kept for the listing; the oldest go first. */
const MAX_FAILED = 50;

/** The loaded and failed VFS plugins of this vfs-plugins instance; guests re-attach after it is set up again. */
export function createGuestRegistry(deps: { host: PluginHost; audit(entry: AuditInput): void; log: Logger; onKilled(guestId: string): Promise<void> }) {
  const entries = new Map<string, Entry>();
  const pluginState = (guestId: string) => deps.host.state(pluginIdOf(guestId));
  const isLive = (entry: Entry | undefined) => entry !== undefined && !entry.failed && pluginState(entry.source.guestId) === 'active';

  function put(entry: Entry): void {
    entries.delete(entry.source.guestId);
    entries.set(entry.source.guestId, entry);
    const failed = [...entries.values()].filter((e) => e.failed);
    for (const old of failed.slice(0, Math.max(0, failed.length - MAX_FAILED))) entries.delete(old.source.guestId);
  }

  function onExit(entry: Entry, module: SandboxModule): void {
    void module.exited.then((exit) => {
      if (exit.reason === 'disposed' || entries.get(entry.source.guestId) !== entry) return;
      entry.failed = exit.message;
      entry.module = undefined;
      const pluginId = pluginIdOf(entry.source.guestId);
      deps.audit({
        type: 'sandbox_lifecycle', severity: 'warn', summary: `VFS plugin "${entry.source.guestId}" killed (${exit.reason}) and unloaded`,
        metadata: { plugin: pluginId, projectId: entry.source.projectId, reason: exit.reason, message: exit.message },
      });
      // Not awaited: this may run while the kernel's lifecycle queue is busy; the unload simply queues.
      deps.host.unload(pluginId).catch((error: Error) => deps.log.warn(`Unloading ${pluginId} failed: ${error.message}`));
      deps.onKilled(entry.source.guestId).catch((error: Error) => deps.log.warn(`Forgetting ${pluginId} failed: ${error.message}`));
    });
  }

  const registry: GuestRegistry = {
    attach(source, module, routes) {
      const entry: Entry = {
        source, version: module.manifest.version, routes, actions: module.manifest.actions.map((a) => a.name), module,
      };
      put(entry);
      onExit(entry, module);
    },
    fail(source, version, error) {
      put({ source, version, routes: [], actions: [], failed: error });
    },
  };

  return {
    registry,
    /** Whether a guest id is loaded and serving, and from which project. */
    live(guestId: string): { projectId: string } | undefined {
      const entry = entries.get(guestId);
      return isLive(entry) ? { projectId: entry!.source.projectId } : undefined;
    },
    liveCount: () => [...entries.values()].filter(isLive).length,
    view(guestId: string): VfsPluginView | undefined {
      const entry = entries.get(guestId);
      if (!entry) return undefined;
      const { guestId: pluginName, projectId, loadedAt } = entry.source;
      return {
        pluginName, pluginId: pluginIdOf(pluginName), projectId, version: entry.version, routes: entry.routes, actions: entry.actions, loadedAt,
        state: entry.failed ? 'failed' : pluginState(pluginName) ?? 'inactive', ...(entry.failed && { error: entry.failed }),
      };
    },
    names: () => [...entries.keys()].sort(),
    projectOf: (guestId: string) => entries.get(guestId)?.source.projectId,
    remove: (guestId: string) => entries.delete(guestId),
  };
}
export type GuestEntries = ReturnType<typeof createGuestRegistry>;
