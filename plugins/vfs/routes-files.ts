import { reply, Type, type PluginContext } from '../../sdk/index.ts';
import { decodeContent, encodeContent } from './encoding.ts';
import { BASE, Encoding, FileInfo, Ok, ProjectId, ProjectParams, Quota, TAGS, VfsPath } from './schemas.ts';
import type { Vfs } from './service.ts';

const ERRORS = '400 INVALID_REQUEST for an invalid project id; 404 PROJECT_NOT_FOUND.';
const PATH_ERRORS = `${ERRORS} 400 INVALID_PATH for an empty, absolute, traversing ("." or ".." segments), percent-encoded, non-normalized or look-alike path.`;

/** Projects, quota and file routes. `bodyLimit` lets a file of `maxFileBytes` arrive as base64. */
export function registerFileRoutes(ctx: PluginContext<any>, vfs: Vfs, bodyLimit: number): void {
  const ProjectReply = Type.Object({ project: Type.Object({ projectId: Type.String() }), quota: Quota });
  ctx.route({
    method: 'POST', path: BASE, tags: TAGS,
    summary: 'Create a VFS project, or open it when it exists',
    description: '201 {project: {projectId}, quota} when created, 200 with the same body when it already existed. 400 INVALID_REQUEST for an invalid id; 413 QUOTA_EXCEEDED when the project limit (default 200) is reached.',
    schema: { body: Type.Object({ projectId: ProjectId }), response: { 200: ProjectReply, 201: ProjectReply } },
    async handler({ body }) {
      const { created, quota } = await vfs.open(body.projectId);
      return reply(created ? 201 : 200, { project: { projectId: body.projectId }, quota });
    },
  });

  ctx.route({
    method: 'DELETE', path: `${BASE}/:id`, tags: TAGS,
    summary: 'Delete a VFS project with its files and snapshots (extension)',
    description: `{ok: true}; file contents no other project or snapshot shares are removed from disk. ${ERRORS}`,
    schema: { params: ProjectParams, response: { 200: Ok } },
    handler: async ({ params }) => { await vfs.remove(params.id); return { ok: true }; },
  });

  ctx.route({
    method: 'GET', path: `${BASE}/:id/quota`, tags: TAGS,
    summary: 'A project\'s usage and limits',
    description: `{quota: {usedBytes, fileCount, quotaBytes, maxFileBytes, maxFiles}}: usage of the current files; snapshots share file contents and do not count. ${ERRORS}`,
    schema: { params: ProjectParams, response: { 200: Type.Object({ quota: Quota }) } },
    handler: async ({ params }) => ({ quota: await vfs.quota(params.id) }),
  });

  ctx.route({
    method: 'GET', path: `${BASE}/:id/files`, tags: TAGS,
    summary: 'Every file of a project, with the directories their paths imply',
    description: `{files: [{path, type, size, mtimeMs}]} sorted by path (UTF-16 code-unit order). Directories exist while a file lies below them: type "directory", size 0, mtimeMs of the newest file below. ${ERRORS}`,
    schema: { params: ProjectParams, response: { 200: Type.Object({ files: Type.Array(FileInfo) }) } },
    handler: async ({ params }) => ({ files: await vfs.list(params.id) }),
  });

  ctx.route({
    method: 'GET', path: `${BASE}/:id/file`, tags: TAGS,
    summary: 'Read a file',
    description: `{path, encoding, content}. encoding utf-8 (default) or base64; a utf-8 read of bytes that are not valid UTF-8 answers 400 NOT_UTF8 (read it as base64). A leading BOM is kept. ${PATH_ERRORS} 404 FILE_NOT_FOUND.`,
    schema: {
      params: ProjectParams,
      query: Type.Object({ path: VfsPath, encoding: Encoding }),
      response: { 200: Type.Object({ path: Type.String(), encoding: Encoding, content: Type.String() }) },
    },
    async handler({ params, query }) {
      const data = await vfs.read(params.id, query.path);
      return { path: query.path, encoding: query.encoding, content: encodeContent(data, query.encoding) };
    },
  });

  ctx.route({
    method: 'PUT', path: `${BASE}/:id/file`, tags: TAGS, bodyLimit,
    summary: 'Create or replace a file',
    description: `201 {file} when the file is new, 200 {file} when it replaced one; durable when answered. Directories are implied by the path. content is text (encoding utf-8, default) or base64 (padded). ${PATH_ERRORS} 400 INVALID_REQUEST for invalid base64; 409 PATH_CONFLICT when the path or one of its parents is a file where a directory is needed (or the reverse); 413 QUOTA_EXCEEDED over the per-file size, project size or file-count limit (nothing changes); 413 PAYLOAD_TOO_LARGE for a body over ${bodyLimit} bytes.`,
    schema: {
      params: ProjectParams,
      body: Type.Object({ path: VfsPath, content: Type.String(), encoding: Encoding }),
      response: { 200: Type.Object({ file: FileInfo }), 201: Type.Object({ file: FileInfo }) },
    },
    async handler({ params, body }) {
      const { file, created } = await vfs.write(params.id, body.path, decodeContent(body.content, body.encoding));
      return reply(created ? 201 : 200, { file });
    },
  });

  ctx.route({
    method: 'DELETE', path: `${BASE}/:id/file`, tags: TAGS,
    summary: 'Delete a file',
    description: `{ok: true}. Directories left without files disappear with it. ${PATH_ERRORS} 404 FILE_NOT_FOUND.`,
    schema: { params: ProjectParams, query: Type.Object({ path: VfsPath }), response: { 200: Ok } },
    handler: async ({ params, query }) => { await vfs.deleteFile(params.id, query.path); return { ok: true }; },
  });
}
