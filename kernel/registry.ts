import type { PluginInfo } from '../sdk/core.ts';
import { errors } from '../sdk/errors.ts';
import type { Disposable, PluginDef, PluginState } from '../sdk/types.ts';

export interface PluginRecord {
  def: PluginDef<any>;
  state: PluginState;
  error?: string;
  stack: Disposable[];
  controller: AbortController;
}

export interface RegistryHooks {
  /** Core tokens every plugin may require (provided by the kernel itself). */
  coreTokens: Set<string>;
  /** Runs the plugin's setup against a fresh context that pushes onto `record.stack`. */
  setup(record: PluginRecord): Promise<void>;
  serviceProvider(tokenId: string): string | undefined;
  holdRoutes(id: string): void;
  releaseRoutes(id: string): void;
  onFailure(id: string, error: Error): void;
  defaultSetupTimeoutMs: number;
}

/**
 * Plugin records and their lifecycle: registered → loading → active → unloading → inactive, or failed.
 * Every transition runs through one serialized queue; ordering and cascades use only declared data.
 */
export class PluginRegistry {
  readonly records = new Map<string, PluginRecord>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly hooks: RegistryHooks) {}

  info(): PluginInfo[] {
    return [...this.records.values()].map(({ def, state, error }) => ({
      id: def.id, version: def.version, state, ...(error && { error }),
      provides: (def.provides ?? []).map((t) => t.id), requires: (def.requires ?? []).map((t) => t.id),
    }));
  }

  state(id: string): PluginState | undefined { return this.records.get(id)?.state; }

  register(def: PluginDef<any>): void {
    if (this.records.has(def.id)) throw new Error(`Plugin "${def.id}" is already registered`);
    this.records.set(def.id, { def, state: 'registered', stack: [], controller: new AbortController() });
  }

  /** Loads every registered plugin in dependency order; returns the failures. */
  loadAll(): Promise<{ id: string; error: string }[]> {
    return this.enqueue(async () => {
      for (const record of this.order([...this.records.values()].filter((r) => r.state === 'registered'))) await this.loadOne(record);
      return [...this.records.values()].filter((r) => r.state === 'failed').map((r) => ({ id: r.def.id, error: r.error! }));
    });
  }

  load(def: PluginDef<any>): Promise<PluginInfo> {
    return this.enqueue(async () => {
      const existing = this.records.get(def.id);
      if (existing && (existing.state === 'active' || existing.state === 'loading')) throw errors.conflict(`Plugin "${def.id}" is already loaded`);
      const record: PluginRecord = { def, state: 'registered', stack: [], controller: new AbortController() };
      this.records.set(def.id, record);
      await this.loadOne(record);
      // Plugins that use its tokens optionally were set up without them: they are set up again to see them.
      if (record.state === 'active') await this.setUpAgain(this.dependentsOf(def.id, true));
      return this.info().find((p) => p.id === def.id)!;
    });
  }

  /** Unloads a plugin; its active dependents are unloaded first with `cascade`, else 409. */
  unload(id: string, options: { cascade?: boolean } = {}): Promise<string[]> {
    return this.enqueue(async () => {
      const record = this.records.get(id);
      if (!record) throw errors.notFound(`Plugin "${id}" is not registered`);
      const dependents = this.dependentsOf(id);
      if (dependents.length && !options.cascade) {
        throw errors.conflict(`Plugin "${id}" is required by ${dependents.map((d) => `"${d}"`).join(', ')}; unload with cascade`);
      }
      const unloaded: string[] = [];
      for (const dependent of [...dependents].reverse()) { await this.unloadOne(this.records.get(dependent)!); unloaded.push(dependent); }
      await this.unloadOne(record);
      return [...unloaded, id];
    });
  }

  /**
   * Replaces a plugin with a new definition (or reloads the same one). Its paths answer 503 meanwhile;
   * dependents are unloaded first and loaded again after.
   */
  reload(id: string, next?: PluginDef<any>): Promise<PluginInfo> {
    return this.enqueue(async () => {
      if (!this.records.has(id)) throw errors.notFound(`Plugin "${id}" is not registered`);
      // Dependents are set up again too (they hold the old instance), so their paths answer 503 (not 404) meanwhile.
      await this.setUpAgain([id, ...this.dependentsOf(id, true)], next);
      return this.info().find((p) => p.id === id)!;
    });
  }

  /**
   * Unloads these plugins (given in load order, so the last first) and loads them again, `replacement`
   * taking the place of the plugin with its id. Their paths answer 503 meanwhile.
   */
  private async setUpAgain(ids: string[], replacement?: PluginDef<any>): Promise<void> {
    const records = ids.map((id) => this.records.get(id)!);
    for (const id of ids) this.hooks.holdRoutes(id);
    try {
      for (const record of [...records].reverse()) await this.unloadOne(record);
      for (const { def } of records) {
        const fresh: PluginRecord = { def: replacement?.id === def.id ? replacement : def, state: 'registered', stack: [], controller: new AbortController() };
        this.records.set(def.id, fresh);
        await this.loadOne(fresh);
      }
    } finally {
      for (const id of ids) this.hooks.releaseRoutes(id);
    }
  }

  /** Unloads every active plugin, dependents before their providers. */
  unloadAll(): Promise<void> {
    return this.enqueue(async () => {
      const active = this.order([...this.records.values()].filter((r) => r.state === 'active'));
      for (const record of active.reverse()) await this.unloadOne(record);
    });
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async loadOne(record: PluginRecord): Promise<void> {
    const { def } = record;
    record.state = 'loading';
    try {
      const missing = (def.requires ?? []).filter((t) => !this.hooks.coreTokens.has(t.id) && !this.activeProvider(t.id));
      if (missing.length) throw new Error(`Missing dependency: ${missing.map((t) => t.id).join(', ')} (no active plugin provides it)`);
      const timeoutMs = def.setupTimeoutMs ?? this.hooks.defaultSetupTimeoutMs;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`Setup timed out after ${timeoutMs} ms`)), timeoutMs); });
      try {
        await Promise.race([this.hooks.setup(record), timeout]);
      } finally {
        clearTimeout(timer);
      }
      const unprovided = (def.provides ?? []).filter((t) => this.hooks.serviceProvider(t.id) !== def.id);
      if (unprovided.length) throw new Error(`Declared but did not provide: ${unprovided.map((t) => t.id).join(', ')}`);
      record.state = 'active';
    } catch (error) {
      await this.dispose(record);
      record.state = 'failed';
      record.error = (error as Error)?.message ?? String(error);
      this.hooks.onFailure(def.id, error as Error);
    }
  }

  private async unloadOne(record: PluginRecord): Promise<void> {
    if (record.state !== 'active') return;
    record.state = 'unloading';
    await this.dispose(record);
    record.state = 'inactive';
  }

  /** Aborts the plugin's signal, then releases its stack LIFO, awaiting each item; one failure does not stop the rest. */
  private async dispose(record: PluginRecord): Promise<void> {
    record.controller.abort();
    while (record.stack.length) {
      const item = record.stack.pop()!;
      try {
        await (typeof item === 'function' ? item() : item.dispose());
      } catch (error) {
        this.hooks.onFailure(record.def.id, new Error(`Disposal failed: ${(error as Error)?.message}`));
      }
    }
  }

  private activeProvider(tokenId: string): PluginRecord | undefined {
    const owner = this.hooks.serviceProvider(tokenId);
    const record = owner ? this.records.get(owner) : undefined;
    return record?.state === 'active' ? record : undefined;
  }

  /**
   * Active plugins that (transitively) require a token provided by `id`, in load order. With `optional`, also
   * those that use one optionally: they hold the old instance too, so a reload must set them up again.
   */
  private dependentsOf(id: string, optional = false): string[] {
    const provided = new Set((this.records.get(id)?.def.provides ?? []).map((t) => t.id));
    const uses = (r: PluginRecord) => [...(r.def.requires ?? []), ...(optional ? r.def.optional ?? [] : [])].some((t) => provided.has(t.id));
    const direct = [...this.records.values()].filter((r) => r.state === 'active' && r.def.id !== id && uses(r));
    const all = new Set<string>();
    for (const d of direct) { for (const t of this.dependentsOf(d.def.id, optional)) all.add(t); all.add(d.def.id); }
    return this.order([...all].map((d) => this.records.get(d)!)).map((r) => r.def.id);
  }

  /** Topological order by `requires`/`optional` → `provides`; cycles keep registration order. */
  private order(records: PluginRecord[]): PluginRecord[] {
    const providerOf = new Map<string, PluginRecord>();
    for (const record of this.records.values()) for (const t of record.def.provides ?? []) providerOf.set(t.id, record);
    const sorted: PluginRecord[] = [];
    const visiting = new Set<PluginRecord>();
    const wanted = new Set(records);
    const visit = (record: PluginRecord) => {
      if (sorted.includes(record) || visiting.has(record)) return;
      visiting.add(record);
      for (const t of [...(record.def.requires ?? []), ...(record.def.optional ?? [])]) {
        const provider = providerOf.get(t.id);
        if (provider && provider !== record && wanted.has(provider)) visit(provider);
      }
      visiting.delete(record);
      sorted.push(record);
    };
    records.forEach(visit);
    return sorted;
  }
}
