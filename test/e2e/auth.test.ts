// End-to-end auth matrix against the real server process (spec "Authentication").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { postJson, raw, start, startAll, stateDir, stopAll, wsClose, wsConnect, wsPing } from './_helpers.ts';

const TOKEN = 'e2e-auth-token-7f3a9c21';
const WRONG = 'e2e-wrong-token-000000';
const SENSITIVE_PLUGIN = ['--plugin', 'test/fixtures/sensitive-plugin.ts'];
const SPEC_CORS_HEADERS = ['Content-Type', 'Authorization', 'X-API-Token', 'X-Api-Key', 'X-Svc-Client-Id', 'X-Svc-UI-Language', 'x-svcos-token', 'X-Svc-Export-Token', 'X-Svc-Terminal-Token'];

interface ErrorBody { error: string; code: string }
interface AuditBody { entries: { timestamp: string; type: string; summary: string; metadata: Record<string, unknown>; severity: string; traceId: string }[] }

// Started lazily, shared by the tests that need them, stopped in `after` (runs in uvu's finally).
let tokenServer: SpawnedServer | undefined;
const withToken = async () => (tokenServer ??= await start({ env: { SVC_API_TOKEN: TOKEN }, args: SENSITIVE_PLUGIN }));

let switchServer: SpawnedServer | undefined;
const switches = async () => (switchServer ??= await start({
  env: { SVC_API_TOKEN: TOKEN, SVC_ALLOW_WS_QUERY_TOKEN: '1', NODE_ENV: 'development', SVC_DEV_AUTH_BYPASS: '1', SVC_API_BIND: '0.0.0.0' },
  args: SENSITIVE_PLUGIN,
}));
let noTokenServers: Promise<{ open: SpawnedServer; production: SpawnedServer }> | undefined;
const noToken = () => (noTokenServers ??= startAll([{ args: SENSITIVE_PLUGIN }, { env: { NODE_ENV: 'production' }, args: SENSITIVE_PLUGIN }])
  .then(([open, production]) => ({ open: open!, production: production! })));

test.after(async () => { await stopAll(); });

const get = (server: SpawnedServer, path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

test('each token header form is accepted on a token route', async () => {
  const server = await withToken();
  const forms: Record<string, string>[] = [
    { authorization: `Bearer ${TOKEN}` },
    { 'x-svc-token': TOKEN },
    { 'x-svcos-token': TOKEN },
    { 'x-api-key': TOKEN },
    { 'x-api-token': TOKEN },
  ];
  for (const headers of forms) {
    const res = await get(server, '/api/runtime', headers);
    assert.is(res.status, 200, `accepted: ${Object.keys(headers)[0]}`);
    const body = (await res.json()) as { plugins: unknown[] };
    assert.ok(Array.isArray(body.plugins));
  }
});

test('header priority: Bearer wins over the other headers', async () => {
  const server = await withToken();
  assert.is((await get(server, '/api/runtime', { authorization: `Bearer ${TOKEN}`, 'x-api-key': WRONG })).status, 200);
  assert.is((await get(server, '/api/runtime', { authorization: `Bearer ${WRONG}`, 'x-api-key': TOKEN })).status, 401);
  // x-svc-token ranks above x-svcos-token and x-api-key.
  assert.is((await get(server, '/api/runtime', { 'x-svc-token': TOKEN, 'x-svcos-token': WRONG, 'x-api-key': WRONG })).status, 200);
  assert.is((await get(server, '/api/runtime', { 'x-svc-token': WRONG, 'x-api-key': TOKEN })).status, 401);
  assert.is((await get(server, '/api/runtime', { 'x-svcos-token': WRONG, 'x-api-token': TOKEN })).status, 401);
});

test('wrong or missing token → 401 {error, code: UNAUTHORIZED}', async () => {
  const server = await withToken();
  const variants: Record<string, string>[] = [{ authorization: `Bearer ${WRONG}` }, { 'x-api-key': WRONG }, {}, { authorization: `Bearer ${TOKEN}x` }];
  for (const headers of variants) {
    const res = await get(server, '/api/runtime', headers);
    assert.is(res.status, 401);
    const body = (await res.json()) as ErrorBody;
    assert.type(body.error, 'string');
    assert.ok(body.error.length > 0);
    assert.is(body.code, 'UNAUTHORIZED');
  }
});

test('public routes are open with a token configured', async () => {
  const server = await withToken();
  const res = await get(server, '/api/auth/status');
  assert.is(res.status, 200);
  const body = (await res.json()) as { required: boolean };
  assert.is(body.required, true);
});

test('sensitive routes require the configured token (even from loopback)', async () => {
  const server = await withToken();
  for (const path of ['/api/fixture/sensitive', '/api/fixture/strict']) {
    const denied = await fetch(`${server.url}${path}`, { method: 'POST' });
    assert.is(denied.status, 401, `${path} without token`);
    assert.is(((await denied.json()) as ErrorBody).code, 'UNAUTHORIZED');
    const wrong = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': WRONG } });
    assert.is(wrong.status, 401, `${path} with wrong token`);
    const ok = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.is(ok.status, 200, `${path} with token`);
    assert.equal(((await ok.json()) as { authenticated: boolean }).authenticated, true);
  }
});

test('CORS preflight from http://localhost:5173 → 204 with exactly the spec header list', async () => {
  const server = await withToken();
  const res = await raw(`${server.url}/api/runtime`, {
    method: 'OPTIONS',
    headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });
  assert.is(res.status, 204);
  assert.is(res.headers['access-control-allow-origin'], 'http://localhost:5173');
  const allowed = String(res.headers['access-control-allow-headers'] ?? '').split(',').map((h) => h.trim()).filter(Boolean);
  assert.equal(allowed, SPEC_CORS_HEADERS);
  // A foreign origin is not granted CORS access.
  const foreign = await raw(`${server.url}/api/runtime`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' } });
  assert.is(foreign.headers['access-control-allow-origin'], undefined);
  assert.is(foreign.headers['access-control-allow-headers'], undefined);
});

test('DNS-rebinding guard: Host evil.example → 403, localhost:PORT → ok', async () => {
  const server = await withToken();
  const auth = { authorization: `Bearer ${TOKEN}` };
  const evil = await raw(`${server.url}/api/runtime`, { headers: { ...auth, host: 'evil.example' } });
  assert.is(evil.status, 403);
  assert.is(evil.json<ErrorBody>().code, 'FORBIDDEN');
  const evilPort = await raw(`${server.url}/api/auth/status`, { headers: { host: `evil.example:${server.port}` } });
  assert.is(evilPort.status, 403, 'public routes are guarded too');
  const local = await raw(`${server.url}/api/runtime`, { headers: { ...auth, host: `localhost:${server.port}` } });
  assert.is(local.status, 200);
  const ip = await raw(`${server.url}/api/runtime`, { headers: { ...auth, host: `127.0.0.1:${server.port}` } });
  assert.is(ip.status, 200);
  const ws = await wsConnect(`ws://127.0.0.1:${server.port}/ws`, { ...auth, host: 'evil.example' });
  assert.is(ws.status, 403, 'WebSocket upgrade with a foreign Host is refused');
});

test('WebSocket /ws: token header connects and ping → pong; no token or ?token= without the switch → 401', async () => {
  const server = await withToken();
  const wsUrl = `ws://127.0.0.1:${server.port}/ws`;
  const forms: Record<string, string>[] = [{ authorization: `Bearer ${TOKEN}` }, { 'x-api-key': TOKEN }];
  for (const headers of forms) {
    const ok = await wsConnect(wsUrl, headers);
    assert.ok(ok.ws, `connects with ${Object.keys(headers)[0]}`);
    try {
      assert.equal(await wsPing(ok.ws), { type: 'pong' });
    } finally {
      await wsClose(ok.ws);
    }
  }
  const none = await wsConnect(wsUrl);
  assert.is(none.status, 401);
  const wrong = await wsConnect(wsUrl, { authorization: `Bearer ${WRONG}` });
  assert.is(wrong.status, 401);
  const query = await wsConnect(`${wsUrl}?token=${TOKEN}`);
  assert.is(query.status, 401, '?token= is ignored without SVC_ALLOW_WS_QUERY_TOKEN=1');
});

test('auth failures are recorded as policy_decision audit entries (without the presented token)', async () => {
  const server = await withToken();
  const marker = `/api/runtime`;
  assert.is((await get(server, marker, { 'x-api-key': WRONG })).status, 401);
  assert.is((await wsConnect(`ws://127.0.0.1:${server.port}/ws`)).status, 401);
  const res = await get(server, '/api/security/audit?type=policy_decision', { authorization: `Bearer ${TOKEN}` });
  assert.is(res.status, 200);
  const text = await res.text();
  const body = JSON.parse(text) as AuditBody;
  assert.ok(body.entries.length > 0);
  for (const entry of body.entries) assert.is(entry.type, 'policy_decision');
  const http = body.entries.find((e) => e.summary.includes('GET /api/runtime') && e.metadata.status === 401);
  assert.ok(http, 'HTTP denial recorded');
  assert.is(http!.severity, 'warn');
  assert.ok(!Number.isNaN(Date.parse(http!.timestamp)));
  assert.type(http!.traceId, 'string');
  assert.ok(body.entries.some((e) => /websocket/i.test(e.summary)), 'WebSocket denial recorded');
  assert.not.ok(text.includes(WRONG), 'the presented (wrong) token is not stored in the audit log');
  assert.not.ok(text.includes(TOKEN), 'the configured token is not stored in the audit log');
});

// One process for three switches that do not interact: the WS query token, the dev bypass and a
// non-loopback bind (allowed because a token is configured).
test('SVC_API_BIND=0.0.0.0 with a token starts, and still needs the token', async () => {
  const server = await switches();
  assert.match(server.output(), /URL:\s+http:\/\/0\.0\.0\.0:/);
  assert.is((await fetch(`${server.url}/api/runtime`)).status, 401);
  assert.is((await fetch(`${server.url}/api/runtime`, { headers: { 'x-api-key': TOKEN } })).status, 200);
});

test('WebSocket ?token= with SVC_ALLOW_WS_QUERY_TOKEN=1; dev bypass opens sensitive routes only', async () => {
  const server = await switches();
  const wsUrl = `ws://127.0.0.1:${server.port}/ws`;
  for (const query of [`token=${TOKEN}`, `apiKey=${TOKEN}`, `api_key=${TOKEN}`]) {
    const ok = await wsConnect(`${wsUrl}?${query}`);
    assert.ok(ok.ws, `connects with ?${query.split('=')[0]}`);
    try {
      assert.equal(await wsPing(ok.ws), { type: 'pong' });
    } finally {
      await wsClose(ok.ws);
    }
  }
  assert.is((await wsConnect(`${wsUrl}?token=${WRONG}`)).status, 401);
  assert.is((await wsConnect(wsUrl)).status, 401);
  // Headers are checked first: a wrong header token is not rescued by a valid query token.
  assert.is((await wsConnect(`${wsUrl}?token=${TOKEN}`, { authorization: `Bearer ${WRONG}` })).status, 401);
  // Query priority: token, then apiKey, then api_key.
  assert.is((await wsConnect(`${wsUrl}?token=${WRONG}&apiKey=${TOKEN}`)).status, 401);

  // NODE_ENV=development + SVC_DEV_AUTH_BYPASS=1: sensitive routes open without a token …
  for (const path of ['/api/fixture/sensitive', '/api/fixture/strict']) {
    const res = await fetch(`${server.url}${path}`, { method: 'POST' });
    assert.is(res.status, 200, `${path} open under dev bypass`);
  }
  // … but plain token routes still need the token.
  assert.is((await fetch(`${server.url}/api/runtime`)).status, 401);
});

test('no token configured: token routes, sensitive routes (loopback) and /ws are open', async () => {
  const { open: server } = await noToken();
  assert.is((await fetch(`${server.url}/api/runtime`)).status, 200);
  assert.is((await fetch(`${server.url}/api/security/audit`)).status, 200);
  const status = (await (await fetch(`${server.url}/api/auth/status`)).json()) as { required: boolean };
  assert.is(status.required, false);
  for (const path of ['/api/fixture/sensitive', '/api/fixture/strict']) {
    const res = await fetch(`${server.url}${path}`, { method: 'POST' });
    assert.is(res.status, 200, `${path} open from loopback`);
    assert.equal(((await res.json()) as { authenticated: boolean }).authenticated, false);
  }
  // A token sent to a server without one is simply ignored.
  assert.is((await fetch(`${server.url}/api/runtime`, { headers: { authorization: `Bearer ${WRONG}` } })).status, 200);
  const ws = await wsConnect(`ws://127.0.0.1:${server.port}/ws`);
  assert.ok(ws.ws);
  try {
    assert.equal(await wsPing(ws.ws), { type: 'pong' });
  } finally {
    await wsClose(ws.ws);
  }
});

test('NODE_ENV=production without a token: sensitive-strict → 403, sensitive (loopback) → 200', async () => {
  const { production: server } = await noToken();
  const strict = await postJson(`${server.url}/api/fixture/strict`, {});
  assert.is(strict.status, 403);
  const body = (await strict.json()) as ErrorBody;
  assert.is(body.error, 'Sensitive endpoint requires API token authentication');
  assert.is(body.code, 'FORBIDDEN');
  assert.is((await fetch(`${server.url}/api/fixture/sensitive`, { method: 'POST' })).status, 200);
  // The refusal is audited.
  const audit = (await (await fetch(`${server.url}/api/security/audit?type=policy_decision`)).json()) as AuditBody;
  assert.ok(audit.entries.some((e) => e.summary.includes('/api/fixture/strict') && e.metadata.status === 403));
});

test('SVC_API_BIND=0.0.0.0 without a token → the process exits non-zero with a clear message', async () => {
  const dir = stateDir();
  let error: Error | undefined;
  try {
    const server = await start({ env: { SVC_API_BIND: '0.0.0.0' }, stateDir: dir });
    await server.kill(); // should never get here
  } catch (e) {
    error = e as Error;
  }
  assert.ok(error, 'server must not start');
  const exit = /Server exited with (\S+)/.exec(error!.message);
  assert.ok(exit, error!.message);
  assert.is.not(exit![1], '0');
  assert.is.not(exit![1], 'null');
  assert.match(error!.message, /Refusing to listen on 0\.0\.0\.0 without an API token/);
  assert.match(error!.message, /SVC_API_TOKEN/);
});

test.run();
