import {
  errors, HttpError, ModuleLoadError, type AuditInput, type CompileMessage, type Logger, type ModuleFormat, type PluginHost,
  type SandboxModule, type SandboxService, type VfsProjects,
} from '../../sdk/index.ts';
import { guestCapabilities, guestPlugin } from './guest-plugin.ts';
import { pluginIdOf, type GuestEntries, type GuestSource, type VfsPluginView } from './registry.ts';
import type { LoadedRecord, LoadedStore } from './store.ts';

/** Where load-plugin with compileFirst writes the bundle. */
export const DEFAULT_OUT_FILE = 'dist/plugin.js';
export const DEFAULT_TARGET = 'es2022';

export interface VfsPluginLimits { memoryMb: number; timeoutMs: number; setupTimeoutMs: number; syncBudgetMs: number; maxPlugins: number; fetchAllowedHosts: string[] }
export interface CompileOptions { entry: string; outFile: string; format: ModuleFormat; target: string }
export interface Compiled { entry: string; outFile: string; format: ModuleFormat; target: string; bytes: number; warnings: CompileMessage[]; durationMs: number }

export interface VfsPluginsDeps {
  vfs: VfsProjects;
  host: PluginHost;
  entries: GuestEntries;
  /** What is loaded, for the next start. */
  loaded: LoadedStore;
  /** The sandbox, looked up per request; throws 503 when it is not running. */
  sandbox(): SandboxService;
  limits: VfsPluginLimits;
  audit(entry: AuditInput): void;
  log: Logger;
}

/**
 * Compiles VFS projects into plugins and loads them as ordinary kernel plugins (`vfs-<id>`). The
 * guest's code is evaluated first, outside the kernel's lifecycle queue, to learn its id; the checks
 * and the kernel change that follow run one at a time.
 */
export function createVfsPlugins(deps: VfsPluginsDeps) {
  const { vfs, host, entries, limits } = deps;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  async function compileTo(projectId: string, options: CompileOptions): Promise<{ code: string; compiled: Compiled }> {
    const box = deps.sandbox();
    await vfs.assertExists(projectId);
    // One listing answers every "does this candidate exist" of import resolution without a failed read.
    const files = new Set((await vfs.list(projectId)).filter((f) => f.type === 'file').map((f) => f.path));
    const result = await box.compile({
      entry: options.entry, format: options.format, target: options.target,
      read: async (path) => (files.has(path) ? vfs.read(projectId, path) : undefined),
    });
    if (!result.ok) {
      const first = result.errors[0];
      const where = first?.file ? `${first.file}${first.line ? `:${first.line}:${first.column}` : ''}: ` : '';
      throw new HttpError(422, 'COMPILE_FAILED', `Compiling ${options.entry} failed: ${where}${first?.message ?? 'unknown error'}`, result.errors);
    }
    const data = Buffer.from(result.code, 'utf8');
    await vfs.write(projectId, options.outFile, data);
    return { code: result.code, compiled: { ...options, bytes: data.byteLength, warnings: result.warnings, durationMs: result.durationMs } };
  }

  /** A load that failed: listed as failed unless that id is live, and audited when the isolate was killed. */
  function loadFailed(error: unknown, projectId: string, loadedAt: number): void {
    if (!(error instanceof ModuleLoadError)) return;
    const guest = error.guest;
    if (guest && !entries.live(guest.id)) entries.registry.fail({ guestId: guest.id, projectId, loadedAt }, guest.version, error.message);
    if (error.status !== 422) {
      deps.audit({
        type: 'sandbox_lifecycle', severity: 'warn', summary: `VFS plugin ${guest ? `"${guest.id}"` : 'module'} killed while loading (${error.code})`,
        metadata: { plugin: guest && pluginIdOf(guest.id), projectId, code: error.code, message: error.message },
      });
    }
  }

  /** Puts an evaluated guest into the kernel: a new plugin, or a reload of the same id from the same project. */
  function install(source: GuestSource, module: SandboxModule, target: { logger: Logger }): Promise<{ plugin: VfsPluginView; created: boolean }> {
    return serial(async () => {
      const { guestId, projectId } = source;
      const live = entries.live(guestId);
      const refuse = (error: HttpError) => { module.dispose(); return error; };
      if (live && live.projectId !== projectId) {
        throw refuse(errors.conflict(`A VFS plugin named "${guestId}" is already loaded from project "${live.projectId}"; unload it there first`));
      }
      if (!live && entries.liveCount() >= limits.maxPlugins) {
        throw refuse(errors.conflict(`At most ${limits.maxPlugins} VFS plugins can be loaded at once; unload one first`, 'TOO_MANY_PLUGINS'));
      }
      const { def, discard } = guestPlugin(source, module, target);
      try {
        const info = live ? await host.reload(def.id, def) : await host.load(def);
        if (info.state !== 'active') {
          throw new ModuleLoadError(422, 'INVALID_PLUGIN', `VFS plugin "${guestId}" could not be loaded: ${info.error}`, { id: guestId, version: def.version });
        }
      } finally {
        discard();
      }
      return { plugin: entries.view(guestId)!, created: !live };
    });
  }

  /** Evaluates a guest's code, puts it into the kernel and records it for the next start. */
  async function loadCode(record: Omit<LoadedRecord, 'guestId'>): Promise<{ plugin: VfsPluginView; created: boolean }> {
    const box = deps.sandbox();
    const { projectId, entry, code, loadedAt } = record;
    const settings = { memoryMb: limits.memoryMb, timeoutMs: limits.timeoutMs, setupTimeoutMs: limits.setupTimeoutMs, syncBudgetMs: limits.syncBudgetMs, fetchAllowedHosts: limits.fetchAllowedHosts };
    const target = { logger: deps.log };
    let module: SandboxModule;
    try {
      module = await box.loadModule({ ...settings, code, caps: guestCapabilities(settings.fetchAllowedHosts, target) });
    } catch (error) {
      loadFailed(error, projectId, loadedAt);
      throw error;
    }
    const source: GuestSource = { guestId: module.manifest.id, projectId, entry, code, loadedAt, settings };
    try {
      const installed = await install(source, module, target);
      await deps.loaded.save({ guestId: source.guestId, projectId, entry, code, loadedAt });
      return installed;
    } catch (error) {
      loadFailed(error, projectId, loadedAt);
      throw error;
    }
  }

  return {
    async compile(projectId: string, options: CompileOptions): Promise<Compiled> {
      return (await compileTo(projectId, options)).compiled;
    },

    async load(projectId: string, request: { entry: string; compileFirst: boolean }): Promise<{ plugin: VfsPluginView; created: boolean }> {
      deps.sandbox();
      let code: string;
      if (request.compileFirst) {
        code = (await compileTo(projectId, { entry: request.entry, outFile: DEFAULT_OUT_FILE, format: 'esm', target: DEFAULT_TARGET })).code;
      } else {
        await vfs.assertExists(projectId);
        code = new TextDecoder().decode(await vfs.read(projectId, request.entry));
      }
      return loadCode({ projectId, entry: request.entry, code, loadedAt: Date.now() });
    },

    /**
     * Loads again what was loaded before the last stop (the code as it was then). A guest that no longer
     * loads is listed as failed and forgotten; with the sandbox missing, it stays for the next start.
     * Stops when `signal` aborts (vfs-plugins unloading).
     */
    async restore(signal: AbortSignal): Promise<void> {
      for (const record of await deps.loaded.all()) {
        // Guests the kernel already knows are set up again by the kernel itself (vfs-plugins was reloaded).
        if (signal.aborted || host.state(pluginIdOf(record.guestId)) !== undefined) continue;
        try {
          await loadCode(record);
        } catch (error) {
          deps.log.warn(`VFS plugin "${record.guestId}" from project "${record.projectId}" was not loaded again: ${(error as Error).message}`, { tags: ['vfs-plugins'] });
          if (error instanceof ModuleLoadError) await deps.loaded.remove(record.guestId);
        }
      }
    },

    list(): VfsPluginView[] {
      return entries.names().map((name) => entries.view(name)!);
    },

    unload(projectId: string, pluginName: string): Promise<void> {
      return serial(async () => {
        if (entries.projectOf(pluginName) !== projectId) throw errors.notFound(`No VFS plugin "${pluginName}" from project "${projectId}"`);
        const id = pluginIdOf(pluginName);
        const state = host.state(id);
        if (state === 'active' || state === 'loading') await host.unload(id);
        entries.remove(pluginName);
        await deps.loaded.remove(pluginName);
      });
    },
  };
}
export type VfsPlugins = ReturnType<typeof createVfsPlugins>;
