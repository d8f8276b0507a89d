import { errors } from '../../sdk/index.ts';

export type Encoding = 'utf-8' | 'base64';

// A flat character class (no repeated group): linear on 14 MB of input, where grouping overflows the regexp stack.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// ignoreBOM: a leading BOM is part of the file's bytes and must survive a round trip.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes a client sent; 400 INVALID_REQUEST for base64 that is not padded base64. */
export function decodeContent(content: string, encoding: Encoding): Uint8Array {
  if (encoding === 'utf-8') return Buffer.from(content, 'utf8');
  if (content.length % 4 !== 0 || !BASE64.test(content)) throw errors.badRequest('content is not valid base64');
  return Buffer.from(content, 'base64');
}

/** The bytes as text, or undefined when they are not valid UTF-8. */
export function utf8OrUndefined(data: Uint8Array): string | undefined {
  try { return strictUtf8.decode(data); } catch { return undefined; }
}

/** The bytes in the requested encoding; 400 NOT_UTF8 (suggesting base64) for a utf-8 read of other bytes. */
export function encodeContent(data: Uint8Array, encoding: Encoding): string {
  if (encoding === 'base64') return Buffer.from(data).toString('base64');
  const text = utf8OrUndefined(data);
  if (text === undefined) throw errors.badRequest('The file is not valid UTF-8 text: read it with encoding=base64', undefined, 'NOT_UTF8');
  return text;
}
