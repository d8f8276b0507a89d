import { errors, reply, Type, type PluginContext } from '../../sdk/index.ts';
import { Note, NOTES_VERSION, type NotesService } from './service.ts';

const NoteId = Type.Object({ id: Type.String({ minLength: 1 }) });

/**
 * The notes HTTP API. Routes default to `access: 'token'`, so they need the API token whenever one is
 * configured. The text limit comes from config, so validation and OpenAPI both show it.
 */
export function registerRoutes(ctx: PluginContext<{ maxLength: number }>, notes: NotesService, createdSinceLoad: () => number): void {
  ctx.route({
    method: 'POST', path: '/api/notes', summary: 'Create a note', tags: ['notes'],
    schema: {
      body: Type.Object({ text: Type.String({ minLength: 1, maxLength: ctx.config.get().maxLength }) }),
      response: { 201: Type.Object({ note: Note }) },
    },
    handler: async ({ body }) => reply(201, { note: await notes.create(body.text) }),
  });

  ctx.route({
    method: 'GET', path: '/api/notes', summary: 'All notes, oldest first', tags: ['notes'],
    schema: { response: { 200: Type.Object({ notes: Type.Array(Note) }) } },
    handler: async () => ({ notes: await notes.list() }),
  });

  // More specific than /api/notes/:id (no parameters), so the router prefers it.
  ctx.route({
    method: 'GET', path: '/api/notes/stats', summary: 'Plugin version and note counts', tags: ['notes'],
    schema: { response: { 200: Type.Object({ version: Type.String(), total: Type.Integer(), createdSinceLoad: Type.Integer() }) } },
    handler: async () => ({ version: NOTES_VERSION, total: await notes.count(), createdSinceLoad: createdSinceLoad() }),
  });

  ctx.route({
    method: 'GET', path: '/api/notes/:id', summary: 'One note', tags: ['notes'],
    schema: { params: NoteId, response: { 200: Type.Object({ note: Note }) } },
    async handler({ params }) {
      const note = await notes.get(params.id);
      if (!note) throw errors.notFound(`Note ${params.id} not found`);
      return { note };
    },
  });

  ctx.route({
    method: 'DELETE', path: '/api/notes/:id', summary: 'Delete a note', tags: ['notes'],
    schema: { params: NoteId },
    async handler({ params }) {
      if (!(await notes.remove(params.id))) throw errors.notFound(`Note ${params.id} not found`);
      return reply(204);
    },
  });
}
