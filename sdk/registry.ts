import type { Registry } from './agent.ts';

/** A registry that also tells its owner when an entry comes or goes (so it can follow the active one). */
export interface WatchedRegistry<T extends { name: string }> extends Registry<T> {
  onChange(listener: (name: string) => void): () => void;
}

/**
 * The one registry implementation for extension points: names are unique (case-insensitive), `add`
 * returns the remover that `ctx.track` takes, and removing a replaced item is a no-op.
 */
export function createRegistry<T extends { name: string }>(kind: string): WatchedRegistry<T> {
  const items = new Map<string, T>();
  const listeners = new Set<(name: string) => void>();
  const key = (name: string) => name.toLowerCase();
  const changed = (name: string) => { for (const listener of listeners) listener(name); };
  return {
    add(item) {
      if (!item.name) throw new Error(`A ${kind} needs a name`);
      if (items.has(key(item.name))) throw new Error(`A ${kind} named "${item.name}" is already registered`);
      items.set(key(item.name), item);
      changed(item.name);
      return () => {
        if (items.get(key(item.name)) !== item) return;
        items.delete(key(item.name));
        changed(item.name);
      };
    },
    get: (name) => items.get(key(name)),
    list: () => [...items.values()],
    onChange(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
  };
}
