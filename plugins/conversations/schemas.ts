import { Type, type RoomMessage } from '../../sdk/index.ts';

export const ConversationSchema = Type.Object({
  id: Type.String(), title: Type.String(), roomId: Type.String({ description: 'Deterministic room id (UUIDv5 of the conversation id)' }),
  createdAt: Type.String({ format: 'date-time' }), updatedAt: Type.String({ format: 'date-time' }),
});

export const MessageSchema = Type.Object({
  id: Type.String(), role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]), text: Type.String(), timestamp: Type.Number(),
  source: Type.Optional(Type.String()), from: Type.Optional(Type.String()), fromUserName: Type.Optional(Type.String()), avatarUrl: Type.Optional(Type.String()),
});

export const ConversationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Non-blank text: whitespace only is as empty as nothing. */
export const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '\\S' });

export const SendBody = Type.Object({
  text: Text(100_000),
  channelType: Type.Optional(Type.String({ maxLength: 50, description: 'Accepted for compatibility; not used' })),
  images: Type.Optional(Type.Array(Type.Object({
    data: Type.String({ minLength: 1, description: 'base64' }), mimeType: Type.String({ pattern: '^image/' }), name: Type.Optional(Type.String({ maxLength: 255 })),
  }), { maxItems: 8 })),
});

/** Chat with images may be this large (spec-gaps: 20 MiB). */
export const SEND_BODY_LIMIT = 20 * 1024 * 1024;

/** The spec-gaps message shape (no room id, no metadata). */
export function toMessage({ id, role, text, timestamp, source, from, fromUserName, avatarUrl }: RoomMessage) {
  return { id, role, text, timestamp, ...(source && { source }), ...(from && { from }), ...(fromUserName && { fromUserName }), ...(avatarUrl && { avatarUrl }) };
}
