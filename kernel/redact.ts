import type { TSchema } from 'typebox';

export const REDACTED = '[REDACTED]';
type Schema = TSchema & { secret?: boolean; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[] };

/** True when any field of the schema is marked `secret: true` (checked once, at registration). */
export function hasSecrets(schema: Schema | undefined): boolean {
  if (!schema) return false;
  if (schema.secret) return true;
  return Object.values(schema.properties ?? {}).some(hasSecrets) || hasSecrets(schema.items) || (schema.anyOf ?? []).some(hasSecrets);
}

/** Copies `value` with every field the schema marks `secret` replaced, unless it is empty. */
export function redactBySchema(schema: Schema | undefined, value: unknown): unknown {
  if (!schema || value === undefined || value === null) return value;
  if (schema.secret) return value === '' ? value : REDACTED;
  if (Array.isArray(value) && schema.items) return value.map((item) => redactBySchema(schema.items, item));
  if (typeof value === 'object' && schema.properties) {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [key, prop] of Object.entries(schema.properties)) if (key in out) out[key] = redactBySchema(prop, out[key]);
    return out;
  }
  return value;
}
