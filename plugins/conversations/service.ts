import { randomUUID } from 'node:crypto';
import { errors, roomIdFor, type MessageStore } from '../../sdk/index.ts';
import type { Conversation, ConversationStore } from './store.ts';

export const DEFAULT_TITLE = 'New Chat';
const TITLE_LENGTH = 60;

/** A title from the first user message: its first line, cut at a word boundary. */
function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  if (line.length <= TITLE_LENGTH) return line;
  const cut = line.slice(0, TITLE_LENGTH);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 20 ? cut.lastIndexOf(' ') : TITLE_LENGTH)}…`;
}

/**
 * Conversations of the web chat. Each maps to the agent room `roomIdFor('conversation', id)`; deleting
 * one deletes its room's messages first, then the record. Every change is reported through `updated`.
 */
export function createConversations(store: ConversationStore, messages: MessageStore, updated: (c: Conversation, deleted?: boolean) => void) {
  const now = () => new Date().toISOString();
  const save = async (conversation: Conversation) => { await store.update(conversation); updated(conversation); return conversation; };
  return {
    list: () => store.list(),
    get: (id: string) => store.get(id),
    async require(id: string): Promise<Conversation> {
      const conversation = await store.get(id);
      if (!conversation) throw errors.notFound(`Conversation ${id} not found`);
      return conversation;
    },
    async create(title = DEFAULT_TITLE): Promise<Conversation> {
      const id = randomUUID();
      const at = now();
      const conversation = { id, title, roomId: roomIdFor('conversation', id), createdAt: at, updatedAt: at };
      await store.insert(conversation);
      updated(conversation);
      return conversation;
    },
    rename: (conversation: Conversation, title: string) => save({ ...conversation, title, updatedAt: now() }),
    /** A message was added: bump `updatedAt`; the first user message names an untitled conversation. */
    touch(conversation: Conversation, userText?: string) {
      const title = userText && conversation.title === DEFAULT_TITLE ? titleFrom(userText) : conversation.title;
      return save({ ...conversation, title, updatedAt: now() });
    },
    async delete(conversation: Conversation): Promise<void> {
      await messages.clear(conversation.roomId);
      await store.delete(conversation.id);
      updated(conversation, true);
    },
    deleteAll: () => store.deleteAll(),
  };
}
export type Conversations = ReturnType<typeof createConversations>;
