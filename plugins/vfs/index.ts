import { cloudCoding, definePlugin, Type, vfsProjects } from '../../sdk/index.ts';
import { registerFileRoutes } from './routes-files.ts';
import { registerPromoteRoute } from './routes-promote.ts';
import { registerSnapshotRoutes } from './routes-snapshots.ts';
import { openVfs } from './service.ts';

export { pathProblem, validatePath, assertProjectId, PROJECT_ID_PATTERN } from './paths.ts';
export { openVfs, type Vfs, type VfsLimits } from './service.ts';

const MiB = 1024 * 1024;

/** Workbench VFS: isolated virtual-file projects with quotas, snapshots, diff, rollback and promotion to the cloud. */
export default definePlugin({
  id: 'vfs',
  version: '0.1.0',
  description: 'Workbench VFS projects under /api/workbench/vfs: content-addressed files with quotas, snapshots, diff, rollback, promote-to-cloud',
  // The cloud account's service is looked up per request: promotion answers 503 while none is connected.
  optional: [cloudCoding],
  provides: [vfsProjects],
  config: Type.Object({
    quotaBytes: Type.Integer({ minimum: 1, default: 50 * MiB, env: 'SVC_VFS_QUOTA_BYTES', description: 'Bytes of current files per project' }),
    maxFileBytes: Type.Integer({ minimum: 1, maximum: 512 * MiB, default: 10 * MiB, env: 'SVC_VFS_MAX_FILE_BYTES', description: 'Bytes per file' }),
    maxFiles: Type.Integer({ minimum: 1, default: 10_000, env: 'SVC_VFS_MAX_FILES', description: 'Files per project' }),
    maxProjects: Type.Integer({ minimum: 1, default: 200, env: 'SVC_VFS_MAX_PROJECTS' }),
    maxSnapshots: Type.Integer({ minimum: 1, default: 100, env: 'SVC_VFS_MAX_SNAPSHOTS', description: 'Snapshots kept per project; the oldest go first' }),
  }),
  async setup(ctx) {
    const limits = ctx.config.get();
    const vfs = await openVfs(ctx.storage, limits, ctx.log);
    ctx.provide(vfsProjects, vfs.projects);
    // A file of maxFileBytes as base64 (4 chars per 3 bytes) plus room for the JSON around it.
    const bodyLimit = Math.ceil(limits.maxFileBytes / 3) * 4 + MiB;
    registerFileRoutes(ctx, vfs, bodyLimit);
    registerSnapshotRoutes(ctx, vfs, limits.maxSnapshots);
    registerPromoteRoute(ctx, vfs);
  },
});
