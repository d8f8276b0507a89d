import { randomUUID } from 'node:crypto';
import { errors, type Action, type Registry, type RunResult } from '../../sdk/index.ts';
import type { Invoke } from './invoke.ts';
import { createLiveActions } from './live.ts';
import { toUpperSnake, type ActionParameter, type CustomAction, type Handler } from './schema.ts';
import type { CustomActionStore } from './store.ts';

/** The fields a client sets; `handler` is already checked by `parseHandler`. */
export interface ActionFields {
  name: string;
  description: string;
  similes: string[];
  parameters: ActionParameter[];
  handler: Handler;
  enabled: boolean;
}

/** Custom actions: persisted, and mirrored live into the agent's action registry when there is one. */
export function createCustomActions(store: CustomActionStore, invoke: Invoke, registry: Registry<Action> | undefined) {
  const live = createLiveActions(registry, (action) => ({
    name: action.name, description: action.description, similes: action.similes, parameters: action.parameters,
    async handler(params, context) {
      const result = await invoke(action, params, context.signal);
      return { text: result.ok ? result.output : `${action.name} failed: ${result.error}${result.output ? `\n${result.output}` : ''}`, data: result };
    },
  }));

  const assertNameFree = async (name: string, id: string) => {
    if (await store.nameTaken(name, id) || live.clashes(name, id)) throw errors.conflict(`An action named ${name} already exists`);
  };
  /** The unique index backs up the check above when two writes race. */
  const write = async (save: () => Promise<void>, name: string) => {
    try { await save(); } catch (error) {
      if (/UNIQUE/i.test((error as Error).message)) throw errors.conflict(`An action named ${name} already exists`);
      throw error;
    }
  };

  return {
    list: () => store.list(),

    async get(id: string): Promise<CustomAction> {
      const action = await store.get(id);
      if (!action) throw errors.notFound(`Custom action ${id} not found`);
      return action;
    },

    async create(fields: ActionFields): Promise<CustomAction> {
      const now = new Date().toISOString();
      const action: CustomAction = { id: randomUUID(), ...checked(fields), createdAt: now, updatedAt: now };
      await assertNameFree(action.name, action.id);
      await write(() => store.insert(action), action.name);
      live.sync(action);
      return action;
    },

    async update(existing: CustomAction, patch: Partial<ActionFields>): Promise<CustomAction> {
      const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<ActionFields>;
      const action: CustomAction = { ...existing, ...checked({ ...existing, ...defined }), updatedAt: new Date().toISOString() };
      if (action.name !== existing.name) await assertNameFree(action.name, action.id);
      await write(() => store.update(action), action.name);
      live.sync(action);
      return action;
    },

    async remove(id: string): Promise<void> {
      if (!await store.remove(id)) throw errors.notFound(`Custom action ${id} not found`);
      live.drop(id);
    },

    /** Invokes the handler directly, not through the agent. */
    test: (action: CustomAction, params: Record<string, string>, signal?: AbortSignal): Promise<RunResult> => invoke(action, params, signal),

    /** Registers every stored enabled action (startup); one that cannot be registered is reported, not fatal. */
    async registerAll(onError: (action: CustomAction, error: Error) => void): Promise<void> {
      for (const action of await store.list()) {
        try { live.sync(action); } catch (error) { onError(action, error as Error); }
      }
    },

    unregisterAll: () => live.clear(),
  };
}
export type CustomActionsService = ReturnType<typeof createCustomActions>;

/** Normalizes the name to UPPER_SNAKE_CASE and rejects duplicate parameter names. */
function checked(fields: ActionFields): ActionFields {
  const name = toUpperSnake(fields.name);
  if (!name) throw errors.badRequest('Invalid name: it needs at least one letter or digit');
  const seen = new Set<string>();
  for (const { name: param } of fields.parameters) {
    if (seen.has(param)) throw errors.badRequest(`Duplicate parameter name: ${param}`);
    seen.add(param);
  }
  return { name, description: fields.description.trim(), similes: fields.similes, parameters: fields.parameters, handler: fields.handler, enabled: fields.enabled };
}
