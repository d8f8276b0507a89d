import { randomUUID } from 'node:crypto';
import { createToken, defineEvent, Type, type Static } from '../../sdk/index.ts';
import type { NoteRow, NoteStore } from './store.ts';

/** Reported by the plugin definition and the stats route; the hot-reload demo edits this line. */
export const NOTES_VERSION = '0.1.0';

export const Note = Type.Object({ id: Type.String(), text: Type.String(), createdAt: Type.String({ format: 'date-time' }) });
export type Note = Static<typeof Note>;

export interface NotesService {
  create(text: string): Promise<Note>;
  list(): Promise<Note[]>;
  get(id: string): Promise<Note | undefined>;
  /** False when no such note existed. */
  remove(id: string): Promise<boolean>;
  count(): Promise<number>;
}

/** Other plugins reach notes through this token, never through the plugin's files. */
export const notesService = createToken<NotesService>('notes.service');
export const noteCreated = defineEvent<Note>('notes.note.created', Note);

/** Domain logic over the store; `emit` publishes `notes.note.created` once a note is durable. */
export function createNotes(store: NoteStore, emit: (note: Note) => void): NotesService {
  return {
    async create(text) {
      const row: NoteRow = { id: randomUUID(), text, created_at: Date.now() };
      await store.insert(row);
      const note = toNote(row);
      emit(note);
      return note;
    },
    list: async () => (await store.list()).map(toNote),
    get: async (id) => {
      const row = await store.get(id);
      return row && toNote(row);
    },
    remove: (id) => store.remove(id),
    count: () => store.count(),
  };
}

const toNote = (row: NoteRow): Note => ({ id: row.id, text: row.text, createdAt: new Date(row.created_at).toISOString() });
