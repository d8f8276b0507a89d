import type { Action, Registry } from '../../sdk/index.ts';
import type { CustomAction } from './schema.ts';

/**
 * Keeps the running agent's action registry in step with the stored custom actions: an enabled action
 * is registered, a changed one replaced, a disabled or deleted one removed. Without an agent it holds
 * nothing and every call is a no-op.
 */
export function createLiveActions(registry: Registry<Action> | undefined, toAction: (action: CustomAction) => Action) {
  const registered = new Map<string, { name: string; remove: () => void }>();
  const drop = (id: string) => {
    registered.get(id)?.remove();
    registered.delete(id);
  };
  return {
    /** True when the agent already has an action called `name` that is not custom action `id`. */
    clashes: (name: string, id: string) => registry?.get(name) !== undefined && registered.get(id)?.name !== name,
    sync(action: CustomAction): void {
      drop(action.id);
      if (registry && action.enabled) registered.set(action.id, { name: action.name, remove: registry.add(toAction(action)) });
    },
    drop,
    clear(): void {
      for (const id of [...registered.keys()]) drop(id);
    },
  };
}
