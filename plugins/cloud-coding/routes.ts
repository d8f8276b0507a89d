import { cloudCoding, errors, reply, Type, type CloudCodingService, type PluginContext } from '../../sdk/index.ts';

const MiB = 1024 * 1024;
/** A whole project travels in one body: a 50 MiB project (the VFS quota) as base64, plus JSON overhead. */
const PROJECT_BODY_LIMIT = 72 * MiB;
const CLOUD_TAGS = ['cloud-coding'];
const AGENT_TAGS = ['coding-agents'];

// Relative virtual paths only: no leading '/', no '.' or '..' segment, no empty segment, no backslash or NUL.
const VirtualPath = Type.String({
  minLength: 1, maxLength: 1024, pattern: '^(?!/)(?!(?:.*/)?\\.{1,2}(?:/|$))(?!.*//)[^\\\\\\x00]+$',
  description: 'Relative virtual path (src/index.ts); no leading /, no . or .. segments',
});
const SourceFile = Type.Union([
  Type.Object({ path: VirtualPath, contents: Type.String(), encoding: Type.Literal('utf-8') }),
  Type.Object({ path: VirtualPath, contents: Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' }), encoding: Type.Literal('base64') }),
]);
const MAX_FILES = 10_000;
const SourceKind = Type.String({ minLength: 1, maxLength: 50, description: 'Where the files come from, e.g. vfs' });
const ProjectId = Type.String({ minLength: 1, maxLength: 200 });
const Source = Type.Object({ sourceKind: SourceKind, projectId: ProjectId, snapshotId: Type.String({ minLength: 1, maxLength: 200 }), files: Type.Array(SourceFile, { maxItems: MAX_FILES }) });
const Agent = Type.Union([Type.Literal('claude'), Type.Literal('codex'), Type.Literal('opencode')]);
const Id = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,200}$' });

const Promotion = Type.Object({
  promotionId: Type.String(), status: Type.String(),
  source: Type.Object({ sourceKind: Type.String(), projectId: Type.String(), snapshotId: Type.String() }),
  workspacePath: Type.String(), createdAt: Type.String({ format: 'date-time' }),
});
const CodingTask = Type.Object({
  sessionId: Type.String(), agentType: Type.String(), label: Type.String(), originalTask: Type.String(), workdir: Type.String(),
  status: Type.Union(['active', 'completed', 'error', 'stopped', 'blocked'].map((s) => Type.Literal(s))),
  decisionCount: Type.Integer(), autoResolvedCount: Type.Integer(),
});

const FAIL_CLOSED = 'Fails closed, never a success stub: 503 CLOUD_NOT_CONNECTED while no cloud account is connected (no cloud coding service loaded)';
const NOT_DEPLOYED = `${FAIL_CLOSED}, and 503 CLOUD_BACKEND_NOT_DEPLOYED when one is: the cloud service has no container backend yet. The body is validated first (400 INVALID_REQUEST).`;

/**
 * Coding-agent coordinator and cloud coding-container routes. No orchestrator and no container backend
 * ship, so these report an empty coordinator and fail closed; the cloud service is resolved per request.
 */
export function registerCloudCodingRoutes(ctx: PluginContext): void {
  const connected = (): CloudCodingService => {
    const cloud = ctx.tryUse(cloudCoding);
    if (!cloud) throw errors.http(503, 'CLOUD_NOT_CONNECTED', 'No cloud account is connected: connect a cloud account to promote projects and run cloud coding containers');
    return cloud;
  };
  /** The cloud coding service has no container API yet: with a connected account, its backend is not deployed. */
  const failClosed = (): never => {
    connected();
    throw errors.http(503, 'CLOUD_BACKEND_NOT_DEPLOYED', 'The cloud coding-container backend is not deployed for the connected cloud account');
  };

  ctx.route({
    method: 'GET', path: '/api/coding-agents/coordinator/status', tags: AGENT_TAGS, summary: 'Coding-agent coordinator: supervision level and tasks',
    description: 'No coding-agent orchestrator ships, and an unavailable orchestrator gives an empty task list, not an error: always {supervisionLevel: "none", taskCount: 0, pendingConfirmations: 0, tasks: []}.',
    schema: {
      response: { 200: Type.Object({ supervisionLevel: Type.String(), taskCount: Type.Integer(), pendingConfirmations: Type.Integer(), tasks: Type.Array(CodingTask) }) },
    },
    handler: () => ({ supervisionLevel: 'none', taskCount: 0, pendingConfirmations: 0, tasks: [] }),
  });

  ctx.route({
    method: 'POST', path: '/api/coding-agents/:sessionId/stop', tags: AGENT_TAGS, summary: 'Stop a coding-agent session',
    description: '503 SERVICE_UNAVAILABLE: no coding-agent orchestrator is loaded.',
    schema: { params: Type.Object({ sessionId: Id }), response: { 200: Type.Object({ ok: Type.Boolean() }) } },
    handler: () => { throw errors.unavailable('No coding-agent orchestrator is running: there is no session to stop'); },
  });

  ctx.route({
    method: 'POST', path: '/api/cloud/coding-containers/promotions', tags: CLOUD_TAGS, bodyLimit: PROJECT_BODY_LIMIT,
    summary: 'Hand a project snapshot\'s files to the connected cloud account',
    description: `201 {success: true, data: promotion} from the connected cloud's coding service. ${FAIL_CLOSED}. Files are {path, contents, encoding: utf-8 | base64}; paths are relative, without . or .. segments. Body up to 72 MiB, at most 10,000 files.`,
    schema: {
      body: Type.Object({
        source: Source, preferredAgent: Type.Optional(Agent),
        name: Type.Optional(Type.String({ maxLength: 200 })), description: Type.Optional(Type.String({ maxLength: 10_000 })),
        workspacePath: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })), branchName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      }),
      response: { 201: Type.Object({ success: Type.Literal(true), data: Promotion }) },
    },
    handler: async ({ body }) => reply(201, { success: true, data: await connected().promote(body) }),
  });

  ctx.route({
    method: 'POST', path: '/api/cloud/coding-containers', tags: CLOUD_TAGS, bodyLimit: PROJECT_BODY_LIMIT,
    summary: 'Start a cloud coding container (claude, codex or opencode) on a promotion or a source',
    description: `Needs a promotionId or a source (else 400 INVALID_REQUEST). ${NOT_DEPLOYED}`,
    schema: {
      body: Type.Object({ agent: Agent, promotionId: Type.Optional(Id), source: Type.Optional(Source), prompt: Type.Optional(Type.String({ maxLength: 100_000 })) }),
    },
    handler({ body }) {
      if (!body.promotionId && !body.source) throw errors.badRequest('Send a promotionId or a source for the container\'s workspace');
      return failClosed();
    },
  });

  ctx.route({
    method: 'POST', path: '/api/cloud/coding-containers/:containerId/sync', tags: CLOUD_TAGS, bodyLimit: PROJECT_BODY_LIMIT,
    summary: 'Sync files between a cloud coding container and a project',
    description: `Full files only: changedFiles are applied whole and deletedFiles removed; a non-empty patches list → 400 INVALID_REQUEST. direction: push, pull or roundtrip. ${NOT_DEPLOYED}`,
    schema: {
      params: Type.Object({ containerId: Id }),
      body: Type.Object({
        direction: Type.Union([Type.Literal('push'), Type.Literal('pull'), Type.Literal('roundtrip')]),
        target: Type.Object({ sourceKind: SourceKind, projectId: ProjectId, baseRevision: Type.Optional(Type.String({ maxLength: 200 })) }),
        changedFiles: Type.Array(SourceFile, { maxItems: MAX_FILES, default: [] }),
        deletedFiles: Type.Array(VirtualPath, { maxItems: MAX_FILES, default: [] }),
        patches: Type.Array(Type.Unknown(), { default: [], description: 'Not applied: must be empty (send full files)' }),
      }),
    },
    handler({ body }) {
      if (body.patches.length) throw errors.badRequest('Patches are not applied: send the full files in changedFiles');
      return failClosed();
    },
  });
}
