import { connect } from 'node:net';
import { auditTypes, errors, sse, Type, type KernelInfo, type PluginContext } from '../../sdk/index.ts';
import { auditFrame, liveFeed } from './events.ts';
import { matches, parseSince, queryLogs, type AuditFilter, type AuditLog } from './service.ts';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));
const LogLevel = literals(['debug', 'info', 'warn', 'error'] as const);
const Severity = literals(['info', 'warn', 'error', 'critical'] as const);
const AuditEntry = Type.Object({
  timestamp: Type.String({ format: 'date-time' }), type: literals(auditTypes), summary: Type.String(),
  metadata: Type.Record(Type.String(), Type.Unknown()), severity: Severity, traceId: Type.String(),
});
const STREAM_ON = new Set(['1', 'true', 'yes', 'on']);

export interface DiagnosticsConfig { extensionRelayPort: number; extensionPath?: string }

export function registerRoutes(ctx: PluginContext<DiagnosticsConfig>, kernel: KernelInfo, audit: AuditLog): void {
  ctx.route({
    method: 'GET', path: '/api/logs', tags: ['diagnostics'],
    summary: 'The last 200 log entries matching every filter',
    schema: {
      query: Type.Object({
        source: Type.Optional(Type.String()), level: Type.Optional(LogLevel), tag: Type.Optional(Type.String()),
        since: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix ms, inclusive' })),
      }),
      response: {
        200: Type.Object({
          entries: Type.Array(Type.Object({ timestamp: Type.Number(), level: LogLevel, source: Type.String(), tags: Type.Array(Type.String()), message: Type.String() })),
          sources: Type.Array(Type.String()), tags: Type.Array(Type.String()),
        }),
      },
    },
    handler: ({ query }) => queryLogs(kernel.logs(), query),
  });

  ctx.route({
    method: 'GET', path: '/api/security/audit', tags: ['diagnostics'],
    summary: 'Security audit entries, or a live SSE stream (snapshot, then entry events)',
    description: 'stream=1|true|yes|on or Accept: text/event-stream selects SSE.',
    schema: {
      query: Type.Object({
        type: Type.Optional(literals(auditTypes)), severity: Type.Optional(Severity),
        since: Type.Optional(Type.String({ description: 'Unix ms or ISO 8601' })),
        limit: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
        stream: Type.Optional(Type.String()),
      }),
      headers: Type.Object({ accept: Type.Optional(Type.String()) }),
      response: { 200: Type.Object({ entries: Type.Array(AuditEntry), totalBuffered: Type.Integer(), replayed: Type.Integer() }) },
    },
    handler({ query, headers }) {
      const since = parseSince(query.since);
      if (since === 'invalid') throw errors.badRequest('Invalid since: use Unix ms or an ISO 8601 date');
      const filter: AuditFilter = { type: query.type, severity: query.severity, since };
      const entries = audit.query(filter, query.limit);
      const wantsStream = STREAM_ON.has((query.stream ?? '').toLowerCase()) || (headers.accept ?? '').includes('text/event-stream');
      if (!wantsStream) return { entries, totalBuffered: audit.size, replayed: entries.length };
      const snapshot = { event: 'snapshot', data: { type: 'snapshot', entries, totalBuffered: audit.size } };
      return sse(liveFeed(snapshot, (push) => audit.subscribe((entry) => { if (matches(entry, filter)) push(entry); }), auditFrame, ctx.signal), { heartbeatMs: 15_000 });
    },
  });

  ctx.route({
    method: 'GET', path: '/api/extension/status', tags: ['diagnostics'],
    summary: 'Whether the browser-extension relay answers on its loopback port',
    schema: { response: { 200: Type.Object({ relayReachable: Type.Boolean(), relayPort: Type.Integer(), extensionPath: Type.Union([Type.String(), Type.Null()]) }) } },
    async handler() {
      const { extensionRelayPort, extensionPath } = ctx.config.get();
      return { relayReachable: await reachable(extensionRelayPort), relayPort: extensionRelayPort, extensionPath: extensionPath || null };
    },
  });
}

/** A real TCP connect to the loopback relay port, given up after 500 ms. */
function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(500, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
