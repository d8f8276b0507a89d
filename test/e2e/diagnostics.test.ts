// Diagnostics end to end (spec "Diagnostics", Events "Security audit SSE"), plus OpenAPI, health
// and runtime shapes.
import { createServer, type Server } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { openSse, postJson, start, stopAll, type SseStream } from './_helpers.ts';

const TOKEN = 'e2e-diagnostics-token-91ab77';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const AUDIT_TYPES = [
  'sandbox_mode_transition', 'secret_token_replacement_outbound', 'secret_sanitization_inbound',
  'privileged_capability_invocation', 'policy_decision', 'signing_request_submitted',
  'signing_request_rejected', 'signing_request_approved', 'plugin_fallback_attempt',
  'security_kill_switch', 'sandbox_lifecycle', 'fetch_proxy_error',
];

interface LogEntry { timestamp: number; level: string; source: string; tags: string[]; message: string }
interface Logs { entries: LogEntry[]; sources: string[]; tags: string[] }
interface AuditEntry { timestamp: string; type: string; summary: string; metadata: Record<string, unknown>; severity: string; traceId: string }
interface Audit { entries: AuditEntry[]; totalBuffered: number; replayed: number }
interface ErrorBody { error: string; code: string }

let relay: Server | undefined;
test.after(async () => {
  await stopAll();
  await new Promise<void>((done) => (relay ? relay.close(() => done()) : done()));
});

let main: SpawnedServer | undefined;
const srv = async () => (main ??= await start({ env: { SVC_API_TOKEN: TOKEN }, args: ['--plugin', 'test/fixtures/logger-plugin.ts'] }));
const get = async (path: string, headers: Record<string, string> = AUTH) => fetch(`${(await srv()).url}${path}`, { headers });
const getJson = async <T>(path: string) => {
  const res = await get(path);
  assert.is(res.status, 200, path);
  return (await res.json()) as T;
};
const writeLogs = async (count: number, level: string, tag: string, message: string) => {
  const res = await postJson(`${(await srv()).url}/api/fixture/log`, { count, level, tag, message }, AUTH);
  assert.is(res.status, 200);
};
const assertBadRequest = async (path: string) => {
  const res = await get(path);
  assert.is(res.status, 400, path);
  assert.is(((await res.json()) as ErrorBody).code, 'INVALID_REQUEST', path);
};
const assertAuditEntry = (entry: AuditEntry) => {
  assert.equal(Object.keys(entry).sort(), ['metadata', 'severity', 'summary', 'timestamp', 'traceId', 'type']);
  assert.ok(AUDIT_TYPES.includes(entry.type), entry.type);
  assert.match(entry.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  assert.type(entry.summary, 'string');
  assert.type(entry.metadata, 'object');
  assert.ok(['info', 'warn', 'error', 'critical'].includes(entry.severity));
  assert.type(entry.traceId, 'string');
  assert.ok(entry.traceId.length > 0);
};

// ---- /api/logs ----

test('GET /api/logs: shape, sources and tags', async () => {
  await writeLogs(3, 'info', 'alpha', 'hello');
  const body = await getJson<Logs>('/api/logs');
  assert.equal(Object.keys(body).sort(), ['entries', 'sources', 'tags']);
  assert.ok(body.entries.length > 0);
  for (const entry of body.entries) {
    assert.equal(Object.keys(entry).sort(), ['level', 'message', 'source', 'tags', 'timestamp']);
    assert.type(entry.timestamp, 'number');
    assert.ok(['debug', 'info', 'warn', 'error'].includes(entry.level));
    assert.ok(Array.isArray(entry.tags));
  }
  for (const source of ['kernel', 'auth', 'log-fixture']) assert.ok(body.sources.includes(source), `source ${source}`);
  assert.ok(body.tags.includes('alpha'));
  assert.ok(body.entries.some((e) => e.source === 'log-fixture' && e.message === 'hello #2' && e.tags.includes('alpha')));
});

test('GET /api/logs filters by source, level, tag and since (inclusive)', async () => {
  await writeLogs(2, 'warn', 'beta', 'careful');
  await writeLogs(2, 'debug', 'gamma', 'details');
  const bySource = await getJson<Logs>('/api/logs?source=log-fixture');
  assert.ok(bySource.entries.length >= 7);
  assert.ok(bySource.entries.every((e) => e.source === 'log-fixture'));
  assert.ok((await getJson<Logs>('/api/logs?source=kernel')).entries.every((e) => e.source === 'kernel'));

  const byLevel = await getJson<Logs>('/api/logs?level=warn');
  assert.ok(byLevel.entries.length >= 2);
  assert.ok(byLevel.entries.every((e) => e.level === 'warn'));
  const debug = await getJson<Logs>('/api/logs?level=debug&source=log-fixture');
  assert.equal(debug.entries.map((e) => e.message), ['details #0', 'details #1']);

  const byTag = await getJson<Logs>('/api/logs?tag=beta');
  assert.equal(byTag.entries.map((e) => e.message), ['careful #0', 'careful #1']);
  assert.equal((await getJson<Logs>('/api/logs?tag=beta&level=info')).entries, [], 'filters combine');

  const all = await getJson<Logs>('/api/logs?source=log-fixture');
  const pivot = all.entries.find((e) => e.message === 'careful #0')!;
  const since = await getJson<Logs>(`/api/logs?source=log-fixture&since=${pivot.timestamp}`);
  assert.ok(since.entries.every((e) => e.timestamp >= pivot.timestamp));
  assert.ok(since.entries.some((e) => e.message === 'careful #0'), 'since is inclusive');
  assert.ok(since.entries.some((e) => e.message === 'details #1'));
  assert.equal((await getJson<Logs>(`/api/logs?since=${Date.now() + 60_000}`)).entries, []);
});

test('GET /api/logs: invalid level or since → 400', async () => {
  await assertBadRequest('/api/logs?level=verbose');
  await assertBadRequest('/api/logs?level=WARNING');
  await assertBadRequest('/api/logs?since=yesterday');
});

test('GET /api/logs returns at most the last 200 matching entries', async () => {
  await writeLogs(250, 'info', 'bulk', 'bulk');
  const body = await getJson<Logs>('/api/logs?tag=bulk');
  assert.is(body.entries.length, 200);
  assert.is(body.entries[0]!.message, 'bulk #50');
  assert.is(body.entries[199]!.message, 'bulk #249');
  assert.is((await getJson<Logs>('/api/logs')).entries.length, 200);
});

test('GET /api/logs needs the token', async () => {
  const res = await get('/api/logs', {});
  assert.is(res.status, 401);
});

// ---- /api/security/audit ----

test('GET /api/security/audit: invalid type, severity, limit or since → 400', async () => {
  for (const query of ['type=nope', 'type=POLICY_DECISION', 'severity=fatal', 'severity=warning', 'limit=0', 'limit=1001', 'limit=-5', 'limit=abc', 'since=not-a-date', 'since=2024-13-45']) {
    await assertBadRequest(`/api/security/audit?${query}`);
  }
  for (const query of ['limit=1', 'limit=1000', `since=${Date.now()}`, 'since=2024-01-01T00:00:00Z', 'severity=critical', 'type=fetch_proxy_error']) {
    assert.is((await get(`/api/security/audit?${query}`)).status, 200, query);
  }
});

test('GET /api/security/audit: entries, filters, limit, since', async () => {
  const before = Date.now();
  for (let i = 0; i < 3; i++) assert.is((await get('/api/runtime', { 'x-api-key': `wrong-${i}` })).status, 401);
  const body = await getJson<Audit>('/api/security/audit');
  assert.equal(Object.keys(body).sort(), ['entries', 'replayed', 'totalBuffered']);
  assert.ok(body.entries.length >= 3);
  assert.is(body.replayed, body.entries.length);
  assert.ok(body.totalBuffered >= body.entries.length);
  body.entries.forEach(assertAuditEntry);

  const policy = await getJson<Audit>('/api/security/audit?type=policy_decision');
  assert.ok(policy.entries.length >= 3);
  assert.ok(policy.entries.every((e) => e.type === 'policy_decision'));
  assert.equal((await getJson<Audit>('/api/security/audit?type=fetch_proxy_error')).entries, []);
  assert.ok((await getJson<Audit>('/api/security/audit?severity=warn')).entries.every((e) => e.severity === 'warn'));
  assert.equal((await getJson<Audit>('/api/security/audit?severity=critical')).entries, []);

  const one = await getJson<Audit>('/api/security/audit?limit=1');
  assert.is(one.entries.length, 1);
  assert.equal(one.entries[0], body.entries.at(-1), 'limit keeps the newest');

  const recent = await getJson<Audit>(`/api/security/audit?since=${before}`);
  assert.ok(recent.entries.length >= 3);
  assert.ok(recent.entries.every((e) => Date.parse(e.timestamp) >= before));
  const iso = await getJson<Audit>(`/api/security/audit?since=${encodeURIComponent(new Date(before).toISOString())}`);
  assert.is(iso.entries.length, recent.entries.length, 'ISO 8601 and Unix ms agree');
  assert.equal((await getJson<Audit>(`/api/security/audit?since=${Date.now() + 60_000}`)).entries, []);
});

const openAudit = async (query: string, headers: Record<string, string> = {}) =>
  openSse(`${(await srv()).url}/api/security/audit${query}`, { ...AUTH, ...headers });

test('SSE (?stream=1): snapshot first, then an entry event for a new auth failure', async () => {
  let stream: SseStream | undefined;
  try {
    stream = await openAudit('?stream=1');
    assert.is(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    const snapshot = await stream.next();
    assert.is(snapshot.event, 'snapshot');
    const data = snapshot.data as { type: string; entries: AuditEntry[]; totalBuffered: number };
    assert.equal(Object.keys(data).sort(), ['entries', 'totalBuffered', 'type']);
    assert.is(data.type, 'snapshot');
    assert.ok(Array.isArray(data.entries) && data.entries.length > 0);
    assert.type(data.totalBuffered, 'number');
    data.entries.forEach(assertAuditEntry);

    assert.is((await get('/api/logs', { authorization: 'Bearer sse-wrong-token' })).status, 401);
    const event = await stream.next((e) => e.event === 'entry');
    const payload = event.data as { type: string; entry: AuditEntry };
    assert.equal(Object.keys(payload).sort(), ['entry', 'type']);
    assert.is(payload.type, 'entry');
    assertAuditEntry(payload.entry);
    assert.is(payload.entry.type, 'policy_decision');
    assert.match(payload.entry.summary, /GET \/api\/logs/);
  } finally {
    stream?.close();
  }
});

test('SSE via Accept: text/event-stream; a pairing failure arrives as an entry event', async () => {
  let stream: SseStream | undefined;
  try {
    stream = await openAudit('?type=policy_decision', { accept: 'text/event-stream' });
    assert.is(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    const snapshot = await stream.next();
    assert.is(snapshot.event, 'snapshot');
    assert.is((snapshot.data as { type: string }).type, 'snapshot');
    const pair = await postJson(`${(await srv()).url}/api/auth/pair`, { code: 'IOIO-IOIO' });
    assert.is(pair.status, 403);
    const event = await stream.next((e) => e.event === 'entry');
    const { entry } = event.data as { entry: AuditEntry };
    assertAuditEntry(entry);
    assert.match(entry.summary, /Pairing refused/);
  } finally {
    stream?.close();
  }
});

test('SSE honours the filters of the query', async () => {
  let stream: SseStream | undefined;
  try {
    stream = await openAudit('?stream=true&severity=error');
    const snapshot = await stream.next();
    assert.ok((snapshot.data as { entries: AuditEntry[] }).entries.every((e) => e.severity === 'error'));
    // A warn-level denial must not be streamed; an error-level one (pairing rate limit) must be.
    assert.is((await get('/api/runtime', { 'x-api-key': 'nope' })).status, 401);
    let status = 0;
    for (let i = 0; i < 6 && status !== 429; i++) status = (await postJson(`${(await srv()).url}/api/auth/pair`, { code: 'IOIO-IOIO' })).status;
    assert.is(status, 429);
    const event = await stream.next((e) => e.event === 'entry');
    const { entry } = event.data as { entry: AuditEntry };
    assert.is(entry.severity, 'error');
    assert.match(entry.summary, /rate-limited/);
  } finally {
    stream?.close();
  }
});

test('SSE needs the token', async () => {
  const res = await get('/api/security/audit?stream=1', {});
  assert.is(res.status, 401);
});

// ---- /api/extension/status ----

test('GET /api/extension/status defaults: {relayReachable: false, relayPort: 18792, extensionPath: null}', async () => {
  assert.equal(await getJson('/api/extension/status'), { relayReachable: false, relayPort: 18792, extensionPath: null });
});

test('GET /api/extension/status: reachable when SVC_EXTENSION_RELAY_PORT points at a listening TCP server', async () => {
  relay = createServer((socket) => socket.destroy());
  await new Promise<void>((done) => relay!.listen(0, '127.0.0.1', () => done()));
  const port = (relay.address() as { port: number }).port;
  const server = await start({ env: { SVC_API_TOKEN: TOKEN, SVC_EXTENSION_RELAY_PORT: String(port), SVC_EXTENSION_PATH: '/opt/svc/extension' } });
  const status = async () => (await (await fetch(`${server.url}/api/extension/status`, { headers: AUTH })).json()) as Record<string, unknown>;
  assert.equal(await status(), { relayReachable: true, relayPort: port, extensionPath: '/opt/svc/extension' });
  await new Promise<void>((done) => relay!.close(() => done()));
  relay = undefined;
  assert.equal(await status(), { relayReachable: false, relayPort: port, extensionPath: '/opt/svc/extension' });
});

// ---- OpenAPI, health, runtime ----

test('GET /api/openapi.json is OpenAPI 3.1 listing the loaded routes', async () => {
  const doc = await getJson<{ openapi: string; info: { title: string; version: string }; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>('/api/openapi.json');
  assert.match(doc.openapi, /^3\.1\./);
  assert.type(doc.info.title, 'string');
  assert.is(doc.info.version, '0.1.0');
  const expected: [string, string][] = [
    ['/api/health', 'get'], ['/api/runtime', 'get'], ['/api/openapi.json', 'get'], ['/api/auth/status', 'get'],
    ['/api/auth/pair', 'post'], ['/api/logs', 'get'], ['/api/security/audit', 'get'], ['/api/extension/status', 'get'],
    ['/api/fixture/log', 'post'],
  ];
  for (const [path, method] of expected) {
    const operation = doc.paths[path]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} documented`);
    assert.type(operation!.responses, 'object');
  }
});

test('GET /api/health shape', async () => {
  const health = await getJson<Record<string, unknown>>('/api/health');
  assert.equal(Object.keys(health).sort(), ['agentState', 'connectors', 'database', 'plugins', 'ready', 'runtime', 'uptime']);
  assert.is(health.ready, true);
  assert.is(health.database, 'ok');
  assert.ok(['ok', 'not_initialized'].includes(health.runtime as string));
  // The default bundle grows; compare with what /api/runtime reports instead of a fixed number.
  const runtime = await getJson<{ plugins: { state: string }[] }>('/api/runtime');
  assert.equal(health.plugins, {
    loaded: runtime.plugins.filter((p) => p.state === 'active').length,
    failed: runtime.plugins.filter((p) => p.state === 'failed').length,
  });
  assert.ok((health.plugins as { loaded: number }).loaded >= 4);
  assert.type(health.connectors, 'object');
  assert.type(health.uptime, 'number');
  assert.ok((health.uptime as number) >= 0);
  assert.type(health.agentState, 'string');
  assert.is((await get('/api/health', {})).status, 401, 'token route');
});

test('GET /api/runtime shape, and no secret value anywhere in it', async () => {
  const res = await get('/api/runtime');
  assert.is(res.status, 200);
  const text = await res.text();
  const runtime = JSON.parse(text) as { plugins: { id: string; version: string; state: string }[]; services: string[]; capabilities: Record<string, boolean>; routes: number };
  assert.equal(Object.keys(runtime).sort(), ['capabilities', 'plugins', 'routes', 'services']);
  const ids = runtime.plugins.map((p) => p.id);
  for (const id of ['auth', 'diagnostics', 'log-fixture', 'runtime']) assert.ok(ids.includes(id), `plugin ${id} listed`);
  assert.is(new Set(ids).size, ids.length, 'each plugin once');
  for (const p of runtime.plugins) {
    assert.type(p.version, 'string');
    assert.ok(['registered', 'loading', 'active', 'unloading', 'inactive', 'failed'].includes(p.state), p.state);
  }
  assert.ok(runtime.plugins.filter((p) => ['auth', 'diagnostics', 'log-fixture', 'runtime'].includes(p.id)).every((p) => p.state === 'active'));
  assert.ok(runtime.services.includes('core.auth'));
  for (const value of Object.values(runtime.capabilities)) assert.type(value, 'boolean');
  assert.is(runtime.capabilities.http, true);
  const doc = await getJson<{ paths: Record<string, Record<string, unknown>> }>('/api/openapi.json');
  const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
  assert.is(runtime.routes, operations, 'route count matches the OpenAPI operations');
  assert.not.ok(text.includes(TOKEN), 'the API token does not appear');
  assert.not.ok(text.includes(TOKEN.slice(4, 20)), 'not even partially');
});

test('SIGTERM with an audit SSE stream open: the stream ends and the process exits 0', async () => {
  const server = await srv();
  const stream = await openAudit('?stream=1');
  try {
    assert.is((await stream.next()).event, 'snapshot');
    const ended = new Promise<void>((resolve) => stream.response.once('close', () => resolve()));
    const code = await server.stop();
    await ended;
    assert.is(code, 0);
  } finally {
    stream.close();
  }
});

test.run();
