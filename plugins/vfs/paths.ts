import { errors } from '../../sdk/index.ts';

export const MAX_PATH_LENGTH = 512;
export const MAX_SEGMENTS = 32;
/** Per segment, in UTF-8 bytes: what common host filesystems accept, so a promoted tree can be written out. */
export const MAX_SEGMENT_BYTES = 255;

/**
 * Allow-list: letters, marks, decimal digits and a small ASCII punctuation set. Everything else (control
 * and format characters, `%`, `\`, `:`, `*`, look-alike slashes and dots such as U+2215 or U+FF0E, which
 * are punctuation or symbols) is refused without having to be named.
 */
const ALLOWED = /^[\p{L}\p{M}\p{Nd}._\-+@~()[\]{},=!#$&' ]$/u;
/**
 * Characters the allow-list's classes admit that still pass for a slash, backslash or dot: overlay marks
 * (canonical combining class 1, drawn across the previous character, e.g. U+0338 "a̸b") and the few
 * letters or marks that are punctuation in all but category. Letters of living scripts (ノ, 丿, ٠) stay allowed.
 */
const LOOKALIKE = /[\u0334-\u0338\u1CD4\u1CE2-\u1CE8\u20D2\u20D3\u20D8-\u20DA\u20E5\u20E6\u20EA\u20EB\u{10A39}\u{16AF0}-\u{16AF4}\u{1BC9E}\u{1D167}-\u{1D169}\u{1D16D}\u1427\u2CC6\uA4F8\uA4F9\uA78F]/u;
const PERCENT_ENCODED = /%[0-9A-Fa-f]{2}/;

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `path` is not an acceptable VFS path, or undefined when it is (relative POSIX, 1–32 segments, ≤ 512 chars). */
export function pathProblem(path: string): string | undefined {
  if (!path) return 'Path is empty';
  if (path.length > MAX_PATH_LENGTH) return `Path is longer than ${MAX_PATH_LENGTH} characters`;
  if (path.startsWith('/')) return 'Path must be relative (no leading "/")';
  if (path.includes('\\')) return 'Backslashes are not allowed in a path';
  if (PERCENT_ENCODED.test(path)) return 'Percent-encoded sequences are not allowed in a path';
  if (path.normalize('NFC') !== path || path.normalize('NFKC') !== path) return 'Path must not change under Unicode NFC or NFKC normalization';
  const segments = path.split('/');
  if (segments.length > MAX_SEGMENTS) return `Path has more than ${MAX_SEGMENTS} segments`;
  for (const segment of segments) {
    if (!segment) return 'Empty path segments ("a//b", a trailing "/") are not allowed';
    if (segment === '.' || segment === '..') return '"." and ".." segments are not allowed';
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return `A path segment is longer than ${MAX_SEGMENT_BYTES} UTF-8 bytes`;
    for (const char of segment) {
      if (!ALLOWED.test(char) || LOOKALIKE.test(char)) return `Character ${codePoint(char)} is not allowed in a path`;
    }
  }
  return undefined;
}

/** Returns `path` when valid; otherwise throws 400 INVALID_PATH saying why. */
export function validatePath(path: string): string {
  const problem = pathProblem(path);
  if (problem) throw errors.badRequest(problem, undefined, 'INVALID_PATH');
  return path;
}

/** Project ids: 1–64 of `A-Za-z0-9._-`, starting with a letter or digit, never containing "..". */
export const PROJECT_ID_PATTERN = '^(?!.*\\.\\.)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const PROJECT_ID = new RegExp(PROJECT_ID_PATTERN);

/** Throws 400 INVALID_REQUEST unless `projectId` matches {@link PROJECT_ID_PATTERN}. */
export function assertProjectId(projectId: string): void {
  if (!PROJECT_ID.test(projectId)) throw errors.badRequest('Invalid project id: use 1–64 of A-Z a-z 0-9 . _ - starting with a letter or digit, without ".."');
}
