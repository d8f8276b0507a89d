import { reply, Type, type PluginContext, type TObject, type TSchema } from '../../sdk/index.ts';
import type { Collection, Fields, Item } from './service.ts';

const TAGS = ['workbench'];
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const Ok = Type.Object({ ok: Type.Literal(true) });

/** How one kind of workbench item (task, todo) is served: paths, body keys, schemas, notes for OpenAPI. */
export interface ItemRoutes<T extends Item> {
  path: string;
  /** Body keys: `{task}` / `{tasks}`. */
  one: string;
  many: string;
  item: TSchema;
  create: TObject;
  patch: TObject;
  collection: Collection<T>;
  /** Extra OpenAPI notes per route. */
  notes: { list: string; create: string; notFound: string };
}

/** List, create, read, partial update and delete for one kind of workbench item. */
export function registerItemRoutes<T extends Item>(ctx: PluginContext, spec: ItemRoutes<T>): void {
  const { path, one, many, item, collection, notes } = spec;
  const single = Type.Object({ [one]: item });
  const writeNotes = 'The name is trimmed; an empty or blank name → 400 EMPTY_NAME, a missing one → 400 INVALID_REQUEST; unknown fields → 400 INVALID_REQUEST. Tags are trimmed and de-duplicated.';

  ctx.route({
    method: 'GET', path, tags: TAGS, summary: `Every ${one}, alphabetically by name`,
    description: `Sorted case-insensitively by name (ties by id). ${notes.list}`,
    schema: { response: { 200: Type.Object({ [many]: Type.Array(item) }) } },
    handler: async () => ({ [many]: await collection.list() }),
  });

  ctx.route({
    method: 'POST', path, tags: TAGS, summary: `Create a ${one}`,
    description: `201 {${one}}, persisted before the answer. ${writeNotes} ${notes.create}`,
    schema: { body: spec.create, response: { 201: single } },
    handler: async ({ body }) => reply(201, { [one]: await collection.create(body as Fields<T>) }),
  });

  ctx.route({
    method: 'GET', path: `${path}/:id`, tags: TAGS, summary: `One ${one}`,
    description: `404 ${notes.notFound} for an unknown id.`,
    schema: { params: Params, response: { 200: single } },
    handler: async ({ params }) => ({ [one]: await collection.get(params.id) }),
  });

  ctx.route({
    method: 'PUT', path: `${path}/:id`, tags: TAGS, summary: `Update a ${one} (partial: only the fields sent change)`,
    description: `{${one}}. ${writeNotes} 404 ${notes.notFound} for an unknown id.`,
    schema: { params: Params, body: spec.patch, response: { 200: single } },
    handler: async ({ params, body }) => ({ [one]: await collection.update(params.id, body as Partial<Fields<T>>) }),
  });

  ctx.route({
    method: 'DELETE', path: `${path}/:id`, tags: TAGS, summary: `Delete a ${one}`,
    description: `{ok: true}. 404 ${notes.notFound} for an unknown id.`,
    schema: { params: Params, response: { 200: Ok } },
    async handler({ params }) {
      await collection.remove(params.id);
      return { ok: true };
    },
  });
}
