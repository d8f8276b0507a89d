// Custom actions against the real server process (`bin/svc.ts`, the default bundle with the sandbox):
// the resource over HTTP, persistence across a restart, hostile code and shell handlers, SSRF attempts,
// and a server that keeps answering while a hostile handler runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { recordingServer, type RecordingServer } from '../sandbox/fixtures/recording-server.ts';
import { postJson, start, stateDir, stop, stopAll, waitFor } from './_helpers.ts';

const TERMINAL = 'e2e-terminal-token-5b1e';
interface RunBody { ok: boolean; output: string; error?: string; durationMs: number }
interface Action { id: string; name: string; enabled: boolean; handler: { type: string } }

let server: SpawnedServer;
let upstream: RecordingServer;
const dir = stateDir();

/** The code deadline is short so the hostile cases end quickly; the spinning test restarts with a long one. */
const boot = (codeTimeoutMs = 1000) => start({
  stateDir: dir,
  env: { SVC_TERMINAL_RUN_TOKEN: TERMINAL, SVC_CODE_TIMEOUT_MS: String(codeTimeoutMs), SVC_FETCH_ALLOWED_HOSTS: upstream.host },
});

test.before(async () => {
  upstream = await recordingServer((request) => ({ body: `upstream saw ${request.url}` }));
  server = await boot();
});
test.after(async () => {
  await stopAll();
  await upstream.close();
});

async function create(body: Record<string, unknown>): Promise<Action> {
  const response = await postJson(`${server.url}/api/custom-actions`, { description: 'e2e', terminalToken: TERMINAL, ...body });
  assert.is(response.status, 201, await response.clone().text());
  return ((await response.json()) as { action: Action }).action;
}
async function run(id: string, params: Record<string, unknown> = {}): Promise<RunBody> {
  const response = await postJson(`${server.url}/api/custom-actions/${id}/test`, { params, terminalToken: TERMINAL });
  assert.is(response.status, 200, await response.clone().text());
  return (await response.json()) as RunBody;
}
const code = async (name: string, source: string, params: Record<string, unknown> = {}) => run((await create({ name, handler: { type: 'code', code: source } })).id, params);
const healthy = async () => (await fetch(`${server.url}/api/health`)).status === 200;

test('create, test and list over HTTP; shell and code need the terminal token', async () => {
  const denied = await postJson(`${server.url}/api/custom-actions`, { name: 'no token', description: 'x', handler: { type: 'code', code: 'return 1' } });
  assert.equal([denied.status, ((await denied.json()) as { code: string }).code], [403, 'TERMINAL_AUTH_REQUIRED']);

  const http = await create({ name: 'fetch upstream', handler: { type: 'http', url: `${upstream.url}/items/{{id}}` }, parameters: [{ name: 'id', description: 'item', required: true }] });
  assert.is(http.name, 'FETCH_UPSTREAM');
  assert.equal(await pick(run(http.id, { id: 'a/b c' })), { ok: true, output: 'upstream saw /items/a%2Fb%20c' });

  const greet = await create({ name: 'greet', handler: { type: 'code', code: 'return `hello ${params.who}`' } });
  assert.equal(await pick(run(greet.id, { who: 'e2e' })), { ok: true, output: 'hello e2e' });

  const list = (await (await fetch(`${server.url}/api/custom-actions`)).json()) as { actions: Action[] };
  assert.equal(list.actions.map((a) => a.name).filter((n) => ['FETCH_UPSTREAM', 'GREET'].includes(n)), ['FETCH_UPSTREAM', 'GREET']);
});

test('hostile code handlers fail cleanly and the server stays healthy', async () => {
  const cases: [string, string, RegExp][] = [
    ['sync loop', 'while (true) {}', /^Timed out after 1000 ms$/],
    ['loop after await', 'await null; while (true) {}', /^Timed out after 1000 ms$/],
    ['never resolves', 'await new Promise(() => {})', /^Timed out after 1000 ms$/],
    ['memory bomb', 'const a = []; while (true) a.push(new Array(1e6).fill(1.5))', /^Memory limit of 64 MB exceeded$/],
    ['huge output', 'return "x".repeat(1e7)', /^Output exceeds \d+ bytes$/],
    ['process env', 'return process.env', /^ReferenceError: process is not defined$/],
    ['require', 'return require("fs").readFileSync("/etc/passwd", "utf8")', /^ReferenceError: require is not defined$/],
    ['dynamic import', 'return (await import("node:child_process")).execSync("id")', /Not supported/],
    ['constructor escape', 'return this.constructor.constructor("return process")().mainModule', /^ReferenceError: process is not defined$/],
  ];
  for (const [name, source, expected] of cases) {
    const result = await code(`hostile ${name}`, source);
    assert.is(result.ok, false, name);
    assert.match(result.error!, expected, name);
    assert.ok(await healthy(), `healthy after ${name}`);
  }
});

test('shell handler: parameters cannot inject commands', async () => {
  const action = await create({ name: 'echo param', handler: { type: 'shell', command: 'printf "[%s]" {{text}}; ls -A' } });
  for (const text of ['; rm -rf ~ ; touch pwned', '$(touch pwned)', '`touch pwned`', 'line\ntouch pwned', "'; touch pwned; '"]) {
    assert.equal(await pick(run(action.id, { text })), { ok: true, output: `[${text}]` }, JSON.stringify(text));
  }
  const audit = (await (await fetch(`${server.url}/api/security/audit?type=privileged_capability_invocation&limit=1000`)).json()) as { entries: { metadata: { origin: string } }[] };
  assert.ok(audit.entries.filter((e) => e.metadata.origin === 'custom-action:ECHO_PARAM').length >= 5, 'every run audited');
});

test('SSRF: neither the http handler nor the code fetch reaches the server itself or metadata', async () => {
  const self = await create({ name: 'self ssrf', handler: { type: 'http', url: `${server.url}/api/custom-actions` } });
  const viaHttp = await run(self.id);
  assert.is(viaHttp.ok, false);
  assert.match(viaHttp.error!, /URL_NOT_ALLOWED/);
  for (const url of [`${server.url}/api/health`, 'http://169.254.169.254/latest/meta-data/', `http://[::ffff:127.0.0.1]:${server.port}/`]) {
    const viaCode = await code(`code ssrf ${url.length}-${Math.random().toString(36).slice(2, 6)}`, 'return (await fetch(params.url)).text', { url });
    assert.is(viaCode.ok, false, url);
    assert.match(viaCode.error!, /URL_NOT_ALLOWED/, url);
  }
});

test('the routes are documented in OpenAPI with their decisions', async () => {
  const spec = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { description?: string }>> };
  const paths = Object.keys(spec.paths).filter((p) => p.startsWith('/api/custom-actions'));
  assert.equal(paths.sort(), ['/api/custom-actions', '/api/custom-actions/generate', '/api/custom-actions/{id}', '/api/custom-actions/{id}/test']);
  assert.match(spec.paths['/api/custom-actions']!.post!.description!, 'TERMINAL_AUTH_REQUIRED');
});

test('actions survive a restart and still run', async () => {
  const before = (await (await fetch(`${server.url}/api/custom-actions`)).json()) as { actions: Action[] };
  await stop(server);
  server = await boot(60_000);
  const after = (await (await fetch(`${server.url}/api/custom-actions`)).json()) as { actions: Action[] };
  assert.equal(after.actions, before.actions);
  const greet = after.actions.find((a) => a.name === 'GREET')!;
  assert.equal(await pick(run(greet.id, { who: 'again' })), { ok: true, output: 'hello again' });
  const removed = await fetch(`${server.url}/api/custom-actions/${greet.id}`, { method: 'DELETE' });
  assert.equal([removed.status, await removed.json()], [200, { ok: true }]);
});

test('the server keeps answering other requests while a hostile handler spins', async () => {
  // Runs after the restart: the deadline is a minute, so the handler is certainly still spinning
  // while the other requests are answered; the client then hangs up, which cancels the run.
  const spin = await create({ name: 'spin forever', handler: { type: 'code', code: 'await fetch(params.url); while (true) {}' } });
  const client = new AbortController();
  let settled = false;
  const pending = fetch(`${server.url}/api/custom-actions/${spin.id}/test`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, signal: client.signal,
    body: JSON.stringify({ params: { url: `${upstream.url}/spinning` }, terminalToken: TERMINAL }),
  }).then(() => 'answered', () => 'aborted').finally(() => { settled = true; });
  await waitFor(() => upstream.requests.some((r) => r.url === '/spinning'), 20_000, 'the handler to start spinning');
  for (let i = 0; i < 3; i++) {
    const [health, list] = await Promise.all([fetch(`${server.url}/api/health`), fetch(`${server.url}/api/custom-actions`)]);
    assert.equal([health.status, list.status, settled], [200, 200, false]);
  }
  client.abort();
  assert.is(await pending, 'aborted');
  assert.ok(await healthy());
});

async function pick(result: Promise<RunBody>): Promise<Pick<RunBody, 'ok' | 'output' | 'error'>> {
  const { ok, output, error } = await result;
  return { ok, output, ...(error !== undefined && { error }) };
}

test.run();
