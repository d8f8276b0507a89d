import { cloudCoding, errors, HttpError, reply, Type, type PluginContext } from '../../sdk/index.ts';
import { validatePath } from './paths.ts';
import { BASE, ProjectParams, SnapshotId, TAGS } from './schemas.ts';
import type { Vfs } from './service.ts';

const Promotion = Type.Object({
  promotionId: Type.String(), status: Type.String(),
  source: Type.Object({ sourceKind: Type.String(), projectId: Type.String(), snapshotId: Type.String() }),
  workspacePath: Type.String(), createdAt: Type.String({ format: 'date-time' }),
});

/** POST promote-to-cloud: a snapshot's files to the connected cloud's coding containers; fails closed. */
export function registerPromoteRoute(ctx: PluginContext<any>, vfs: Vfs): void {
  ctx.route({
    method: 'POST', path: `${BASE}/:id/promote-to-cloud`, tags: TAGS,
    summary: 'Hand a snapshot\'s files to the connected cloud account\'s coding containers',
    description: '202 {success: true, data: {promotionId, status, source: {sourceKind: "vfs-snapshot", projectId, snapshotId}, workspacePath, createdAt}}. Files are sent as utf-8 when they are valid UTF-8, otherwise base64. Fails closed, never a success stub: 503 CLOUD_NOT_CONNECTED when no cloud account is connected (no cloud coding service loaded); the cloud\'s own errors pass through, anything else it throws is 502 CLOUD_REQUEST_FAILED. 400 INVALID_REQUEST for an invalid body, INVALID_PATH for an invalid workspacePath (relative, like file paths); 404 PROJECT_NOT_FOUND, SNAPSHOT_NOT_FOUND.',
    schema: {
      params: ProjectParams,
      body: Type.Object({
        snapshotId: SnapshotId,
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        description: Type.Optional(Type.String({ maxLength: 4000 })),
        preferredAgent: Type.Optional(Type.Union([Type.Literal('claude'), Type.Literal('codex'), Type.Literal('opencode')])),
        workspacePath: Type.Optional(Type.String({ description: 'Relative to the container\'s workspace root; the same rules as file paths' })),
        branchName: Type.Optional(Type.String({ pattern: '^(?!.*\\.\\.)(?!/)(?!.*/$)[A-Za-z0-9._/-]{1,200}$', description: 'Git branch name' })),
      }),
      response: { 202: Type.Object({ success: Type.Literal(true), data: Promotion }) },
    },
    async handler({ params, body }) {
      const { snapshotId, ...options } = body;
      if (options.workspacePath !== undefined) validatePath(options.workspacePath);
      await vfs.snapshot(params.id, snapshotId);
      const cloud = ctx.tryUse(cloudCoding);
      if (!cloud) throw errors.http(503, 'CLOUD_NOT_CONNECTED', 'No cloud account is connected: connect a cloud account to promote a project');
      const source = await vfs.promotionSource(params.id, snapshotId);
      try {
        return reply(202, { success: true, data: await cloud.promote({ source, ...options }) });
      } catch (error) {
        if (HttpError.is(error)) throw error;
        ctx.log.warn('Cloud promotion failed', { error, tags: ['vfs'] });
        throw errors.http(502, 'CLOUD_REQUEST_FAILED', 'The cloud did not accept the promotion');
      }
    },
  });
}
