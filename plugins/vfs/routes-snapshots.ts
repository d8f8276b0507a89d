import { reply, Type, type PluginContext } from '../../sdk/index.ts';
import { BASE, DiffEntry, ProjectParams, Snapshot, SnapshotId, TAGS } from './schemas.ts';
import type { Vfs } from './service.ts';

const ERRORS = '400 INVALID_REQUEST for an invalid project id; 404 PROJECT_NOT_FOUND.';

/** Snapshot, diff and rollback routes. */
export function registerSnapshotRoutes(ctx: PluginContext<any>, vfs: Vfs, maxSnapshots: number): void {
  ctx.route({
    method: 'GET', path: `${BASE}/:id/snapshots`, tags: TAGS,
    summary: 'A project\'s snapshots, newest first',
    description: `{snapshots: [{id, projectId, createdAt, fileCount, note?}]}. ${ERRORS}`,
    schema: { params: ProjectParams, response: { 200: Type.Object({ snapshots: Type.Array(Snapshot) }) } },
    handler: async ({ params }) => ({ snapshots: await vfs.snapshots(params.id) }),
  });

  ctx.route({
    method: 'POST', path: `${BASE}/:id/snapshots`, tags: TAGS,
    summary: 'Snapshot the project\'s current files',
    description: `201 {snapshot: {id, projectId, createdAt, fileCount, note?}}. A snapshot copies neither file contents (stored once by SHA-256 and shared) nor file rows (trees are versioned rows): its cost does not grow with the project. A project keeps its newest ${maxSnapshots} snapshots; taking one more removes the oldest. ${ERRORS}`,
    schema: {
      params: ProjectParams,
      body: Type.Object({ note: Type.Optional(Type.String({ maxLength: 1000 })) }, { default: {} }),
      response: { 201: Type.Object({ snapshot: Snapshot }) },
    },
    handler: async ({ params, body }) => reply(201, { snapshot: await vfs.takeSnapshot(params.id, body.note) }),
  });

  ctx.route({
    method: 'GET', path: `${BASE}/:id/diff`, tags: TAGS,
    summary: 'What changed since a snapshot',
    description: `{diff: [{path, status, before?, after?}]} sorted by path: the current files compared with the snapshot's. added: only in the current tree (after); deleted: only in the snapshot (before); modified: content differs (before and after). before/after are {size, hash (SHA-256 hex), mtimeMs}; rewriting a file with the same bytes is no change. ${ERRORS} 404 SNAPSHOT_NOT_FOUND.`,
    schema: { params: ProjectParams, query: Type.Object({ snapshotId: SnapshotId }), response: { 200: Type.Object({ diff: Type.Array(DiffEntry) }) } },
    handler: async ({ params, query }) => ({ diff: await vfs.diff(params.id, query.snapshotId) }),
  });

  ctx.route({
    method: 'POST', path: `${BASE}/:id/rollback`, tags: TAGS,
    summary: 'Make a snapshot\'s files current again',
    description: `{rollback: {snapshotId, projectId, rolledBackAt, previousSnapshotId}}. The current files are snapshotted first (previousSnapshotId, so the rollback can itself be undone), then replaced by the snapshot's, in one transaction; usage becomes the snapshot's even if limits were lowered since. ${ERRORS} 404 SNAPSHOT_NOT_FOUND.`,
    schema: {
      params: ProjectParams,
      body: Type.Object({ snapshotId: SnapshotId }),
      response: {
        200: Type.Object({
          rollback: Type.Object({ snapshotId: Type.String(), projectId: Type.String(), rolledBackAt: Type.String({ format: 'date-time' }), previousSnapshotId: Type.String() }),
        }),
      },
    },
    handler: async ({ params, body }) => ({ rollback: await vfs.rollback(params.id, body.snapshotId) }),
  });
}
