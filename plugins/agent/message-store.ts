import { randomUUID } from 'node:crypto';
import type { MessageStore, RoomMessage, SqlDatabase } from '../../sdk/index.ts';

interface Row {
  id: string; room_id: string; role: 'user' | 'assistant'; text: string; timestamp: number; source: string | null;
  from_id: string | null; from_name: string | null; avatar_url: string | null; metadata: string | null;
}

const COLUMNS = 'id, room_id, role, text, timestamp, source, from_id, from_name, avatar_url, metadata';

function toMessage(row: Row): RoomMessage {
  return {
    id: row.id, roomId: row.room_id, role: row.role, text: row.text, timestamp: row.timestamp,
    ...(row.source && { source: row.source }),
    ...(row.from_id && { from: row.from_id }),
    ...(row.from_name && { fromUserName: row.from_name }),
    ...(row.avatar_url && { avatarUrl: row.avatar_url }),
    ...(row.metadata && { metadata: JSON.parse(row.metadata) }),
  };
}

/** Room messages in the agent's database; order is insertion order (seq), not the timestamp. */
export function createMessageStore(db: SqlDatabase): MessageStore & { clearAll(): Promise<void> } {
  return {
    async list(roomId, { limit = 200, before } = {}) {
      const rows = before === undefined
        ? await db.all<Row>(`SELECT ${COLUMNS} FROM messages WHERE room_id = ? ORDER BY seq DESC LIMIT ?`, [roomId, limit])
        : await db.all<Row>(
          `SELECT ${COLUMNS} FROM messages WHERE room_id = ? AND seq < (SELECT seq FROM messages WHERE id = ? AND room_id = ?) ORDER BY seq DESC LIMIT ?`,
          [roomId, before, roomId, limit],
        );
      return rows.reverse().map(toMessage);
    },
    async add(message) {
      const stored: RoomMessage = { ...message, id: randomUUID(), timestamp: message.timestamp ?? Date.now() };
      await db.run(`INSERT INTO messages (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        stored.id, stored.roomId, stored.role, stored.text, stored.timestamp, stored.source ?? null, stored.from ?? null,
        stored.fromUserName ?? null, stored.avatarUrl ?? null, stored.metadata ? JSON.stringify(stored.metadata) : null,
      ]);
      return stored;
    },
    async clear(roomId) {
      return (await db.run('DELETE FROM messages WHERE room_id = ?', [roomId])).changes;
    },
    async clearAll() {
      await db.run('DELETE FROM messages');
    },
  };
}
