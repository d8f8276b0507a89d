import { definePlugin, Type } from '../../sdk/index.ts';
import { registerRoutes } from './routes.ts';
import { createNotes, noteCreated, NOTES_VERSION, notesService } from './service.ts';
import { createNoteStore, migrations } from './store.ts';

export { noteCreated, notesService, type Note, type NotesService } from './service.ts';

/** A third-party plugin written only against the public SDK: storage, a service, an event, routes. */
export default definePlugin({
  id: 'notes',
  version: NOTES_VERSION,
  description: 'Short text notes',
  provides: [notesService],
  config: Type.Object({
    maxLength: Type.Integer({ minimum: 1, default: 2000, env: 'NOTES_MAX_LENGTH', description: 'Longest note text accepted' }),
  }),
  async setup(ctx) {
    const notes = createNotes(createNoteStore(await ctx.storage.sql({ migrations })), (note) => ctx.emit(noteCreated, note));
    ctx.provide(notesService, notes);
    // The plugin listens to its own event like any other plugin would; the listener leaves with it.
    let created = 0;
    ctx.on(noteCreated, () => { created++; });
    registerRoutes(ctx, notes, () => created);
  },
});
