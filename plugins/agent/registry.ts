import type { Registry } from '../../sdk/index.ts';

/**
 * A named registry other plugins add to with `ctx.track(registry.add(item))`. Names compare
 * case-insensitively; `list()` keeps insertion order (model selection relies on it).
 */
export function createRegistry<T extends { name: string }>(kind: string): Registry<T> {
  const items = new Map<string, T>();
  const key = (name: string) => name.toLowerCase();
  return {
    add(item) {
      if (!item.name) throw new Error(`A ${kind} needs a name`);
      if (items.has(key(item.name))) throw new Error(`A ${kind} named "${item.name}" is already registered`);
      items.set(key(item.name), item);
      return () => { if (items.get(key(item.name)) === item) items.delete(key(item.name)); };
    },
    get: (name) => items.get(key(name)),
    list: () => [...items.values()],
  };
}
