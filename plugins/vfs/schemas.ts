import { Type } from '../../sdk/index.ts';
import { PROJECT_ID_PATTERN } from './paths.ts';

export const TAGS = ['workbench-vfs'];
export const BASE = '/api/workbench/vfs/projects';

export const ProjectId = Type.String({ pattern: PROJECT_ID_PATTERN, description: '1–64 of A-Z a-z 0-9 . _ -, starting with a letter or digit, without ".."' });
export const ProjectParams = Type.Object({ id: ProjectId });
/** Checked by the path validator (400 INVALID_PATH), not by the schema, so every bad path gets the same code. */
export const VfsPath = Type.String({
  description: 'Relative POSIX path, 1–32 segments, ≤ 512 characters; letters, marks, digits and ._-+@~()[]{},=!#$&\' and space; no "." or ".." segments, no percent-encoding, NFC/NFKC-stable',
});
export const Encoding = Type.Union([Type.Literal('utf-8'), Type.Literal('base64')], { default: 'utf-8' });
export const SnapshotId = Type.String({ minLength: 1, maxLength: 100 });

export const Ok = Type.Object({ ok: Type.Literal(true) });
export const Quota = Type.Object({
  usedBytes: Type.Integer(), fileCount: Type.Integer(), quotaBytes: Type.Integer(), maxFileBytes: Type.Integer(),
  maxFiles: Type.Integer({ description: 'Extension: the file-count limit' }),
});
export const FileInfo = Type.Object({
  path: Type.String(), type: Type.Union([Type.Literal('file'), Type.Literal('directory')]), size: Type.Integer(), mtimeMs: Type.Number(),
});
export const Snapshot = Type.Object({
  id: Type.String(), projectId: Type.String(), createdAt: Type.String({ format: 'date-time' }), fileCount: Type.Integer(), note: Type.Optional(Type.String()),
});
const Version = Type.Object({ size: Type.Integer(), hash: Type.String({ description: 'SHA-256 of the content, hex' }), mtimeMs: Type.Number() });
export const DiffEntry = Type.Object({
  path: Type.String(),
  status: Type.Union([Type.Literal('added'), Type.Literal('modified'), Type.Literal('deleted')]),
  before: Type.Optional(Version), after: Type.Optional(Version),
});
