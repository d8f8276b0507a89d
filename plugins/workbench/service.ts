import { randomUUID } from 'node:crypto';
import { errors } from '../../sdk/index.ts';
import { TASK_TAG, type Task, type Todo } from './schemas.ts';
import type { Table } from './store.ts';

/** What tasks and todos have in common. */
export interface Item { id: string; name: string; tags: string[]; createdAt: string; updatedAt: string }
/** What a client writes: everything but the id and the timestamps. */
export type Fields<T> = Omit<T, 'id' | 'createdAt' | 'updatedAt'>;

// Case-insensitive, accent-aware alphabetical order ("apple" < "Banana" < "cherry"); ties by id keep it stable.
const collator = new Intl.Collator('en', { sensitivity: 'accent' });
const byName = (a: Item, b: Item) => collator.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

interface Kind { label: string; notFoundCode: string; requiredTags: string[] }

/**
 * Named records (tasks, todos) in one table: names are trimmed and must not be blank (400 EMPTY_NAME),
 * tags are trimmed and de-duplicated (plus the kind's required tags), lists are sorted by name.
 */
function createCollection<T extends Item>(table: Table<T>, kind: Kind) {
  const notFound = (id: string) => errors.notFound(`${kind.label} ${id} not found`, kind.notFoundCode);
  const normalized = (fields: Fields<T>): Fields<T> => {
    const name = fields.name.trim();
    if (!name) throw errors.badRequest(`${kind.label} name cannot be empty`, undefined, 'EMPTY_NAME');
    return { ...fields, name, tags: [...new Set([...fields.tags.map((tag) => tag.trim()), ...kind.requiredTags])] };
  };
  const service = {
    list: async (): Promise<T[]> => (await table.all()).sort(byName),

    async get(id: string): Promise<T> {
      const item = await table.get(id);
      if (!item) throw notFound(id);
      return item;
    },

    async create(fields: Fields<T>): Promise<T> {
      const now = new Date().toISOString();
      const item = { ...normalized(fields), id: randomUUID(), createdAt: now, updatedAt: now } as T;
      await table.insert(item);
      return item;
    },

    /** A partial update: fields left out (or undefined) keep their value. */
    async update(id: string, patch: Partial<Fields<T>>): Promise<T> {
      const existing = await service.get(id);
      const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
      const item = { ...existing, ...normalized({ ...existing, ...defined }), updatedAt: new Date().toISOString() };
      if (!await table.update(item)) throw notFound(id);
      return item;
    },

    /** Deletes every item (agent reset). */
    clear: (): Promise<void> => table.clear(),
    async remove(id: string): Promise<void> {
      if (!await table.remove(id)) throw notFound(id);
    },
  };
  return service;
}
export type Collection<T extends Item> = ReturnType<typeof createCollection<T>>;

/** Workbench tasks: always tagged `workbench-task`; unknown ids → 404 TASK_NOT_FOUND. */
export const createTasks = (table: Table<Task>) => createCollection(table, { label: 'Task', notFoundCode: 'TASK_NOT_FOUND', requiredTags: [TASK_TAG] });

/** Todos: unknown ids → 404 TODO_NOT_FOUND. */
export const createTodos = (table: Table<Todo>) => createCollection(table, { label: 'Todo', notFoundCode: 'TODO_NOT_FOUND', requiredTags: [] });
