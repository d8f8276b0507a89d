// The three handler kinds run for real through POST /api/custom-actions/:id/test: http against a local
// server (placeholder encoding, output cap, SSRF guard), code in the sandbox (params, guarded fetch,
// deadline), shell through the sandbox's shell runner; and what happens without the sandbox.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import customActions from '../../plugins/custom-actions/index.ts';
import sandbox from '../../sandbox/index.ts';
import { coreSandbox } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import { recordingServer, type Answer, type RecordingServer } from '../sandbox/fixtures/recording-server.ts';

let kernel: TestKernel;
let service: RecordingServer;
let internal: RecordingServer;

test.before(async () => {
  service = await recordingServer((request): Answer => {
    if (request.url === '/fail') return { status: 500, body: 'upstream broke' };
    if (request.url === '/long') return { body: 'L'.repeat(5000) };
    if (request.url === '/redirect') return { status: 302, headers: { location: `${internal.url}/` } };
    return { headers: { 'x-answer': '42' }, body: `echo ${request.method} ${request.url}` };
  });
  internal = await recordingServer(() => ({ body: 'internal only' }));
  kernel = await createTestKernel({
    plugins: [sandbox, customActions],
    // Only the "third-party service" is allowed through the SSRF guard, never the "internal" server.
    config: { 'custom-actions': { fetchAllowedHosts: service.host, codeTimeoutMs: 300 } },
  });
});
test.after(async () => {
  await kernel.close();
  await service.close();
  await internal.close();
});

async function run(handler: Record<string, unknown>, params: Record<string, unknown> = {}, parameters: unknown[] = []) {
  const created = await kernel.inject({ method: 'POST', url: '/api/custom-actions', body: { name: `t ${Math.random().toString(36).slice(2)}`, description: 'test', handler, parameters } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return kernel.inject({ method: 'POST', url: `/api/custom-actions/${created.body.action.id}/test`, body: { params } });
}

test('http: {{param}} is URL-encoded in the url and raw in header values and the body template', async () => {
  const value = 'a b&c=d/é?#"x"';
  const response = await run({
    type: 'http', method: 'POST', url: `${service.url}/search?q={{q}}&n={{n}}`,
    headers: { 'x-query': 'raw {{n}}' }, bodyTemplate: '{"q": "{{q}}", "n": {{n}}}',
  }, { q: value, n: 7 });
  assert.equal([response.status, response.body.ok], [200, true]);
  const received = service.requests.at(-1)!;
  assert.is(received.url, `/search?q=${encodeURIComponent(value)}&n=7`);
  assert.is(received.headers['x-query'], 'raw 7');
  assert.is(received.body, `{"q": "${value}", "n": 7}`);
  assert.is(response.body.output, `echo POST /search?q=${encodeURIComponent(value)}&n=7`);
});

test('http: the output is the first 4000 characters; a non-2xx status fails the run', async () => {
  const long = await run({ type: 'http', url: `${service.url}/long` });
  assert.equal([long.body.ok, long.body.output.length], [true, 4000]);
  const failed = await run({ type: 'http', url: `${service.url}/fail` });
  assert.equal([failed.status, failed.body.ok, failed.body.output, failed.body.error], [200, false, 'upstream broke', 'HTTP 500']);
});

test('http: SSRF refused — private targets, metadata address, redirects, and a url built from a parameter', async () => {
  const before = internal.requests.length;
  for (const url of [`${internal.url}/`, 'http://169.254.169.254/latest/meta-data/', `${service.url}/redirect`, 'http://{{host}}/']) {
    const response = await run({ type: 'http', url }, { host: internal.host });
    assert.is(response.body.ok, false, url);
    assert.match(response.body.error, /URL_NOT_ALLOWED/, url);
  }
  assert.is(internal.requests.length, before, 'the internal server was never reached');
});

test('http: a header value cannot smuggle a second header', async () => {
  const response = await run({ type: 'http', url: `${service.url}/h`, headers: { 'x-a': '{{v}}' } }, { v: 'ok\r\nx-injected: yes' });
  assert.is(response.body.ok, false);
  assert.match(response.body.error, /Invalid request: .*header/);
  assert.not.ok(service.requests.some((r) => 'x-injected' in r.headers));
});

test('code: params and the guarded fetch are its capabilities', async () => {
  const math = await run({ type: 'code', code: 'return Number(params.a) * Number(params.b)' }, { a: 6, b: 7 });
  assert.equal([math.body.ok, math.body.output], [true, '42']);
  const fetched = await run({ type: 'code', code: 'const r = await fetch(params.url + "/from-code", { method: "PUT", body: "b" }); return { status: r.status, answer: r.headers["x-answer"], text: r.text }' }, { url: service.url });
  assert.equal(JSON.parse(fetched.body.output), { status: 200, answer: '42', text: 'echo PUT /from-code' });
});

test('code: SSRF through fetch is refused inside the isolate', async () => {
  const before = internal.requests.length;
  const blocked = await run({ type: 'code', code: 'try { await fetch(params.url); return "reached" } catch (e) { return "refused: " + e.message }' }, { url: internal.url });
  assert.match(blocked.body.output, /^refused: .*URL_NOT_ALLOWED/);
  const metadata = await run({ type: 'code', code: 'return (await fetch("http://169.254.169.254/latest/meta-data/")).text' });
  assert.equal([metadata.body.ok, /URL_NOT_ALLOWED/.test(metadata.body.error)], [false, true]);
  const redirect = await run({ type: 'code', code: 'return (await fetch(params.url + "/redirect")).status' }, { url: service.url });
  assert.is(redirect.body.ok, false);
  const badArgs = await run({ type: 'code', code: 'return await fetch(params.url, { headers: { a: 1 } })' }, { url: service.url });
  assert.match(badArgs.body.error, /init may hold/);
  assert.is(internal.requests.length, before);
});

test('code: a hostile handler is stopped at the configured deadline', async () => {
  const loop = await run({ type: 'code', code: 'await null; while (true) {}' });
  assert.equal([loop.status, loop.body.ok, loop.body.error], [200, false, 'Timed out after 300 ms']);
});

test('shell: parameters cannot inject commands; the shell permission switch is honoured', async () => {
  const created = await kernel.inject({ method: 'POST', url: '/api/custom-actions', body: { name: 'echo it', description: 'echo', handler: { type: 'shell', command: 'printf %s {{msg}}; ls -A' } } });
  const id = created.body.action.id;
  const response = await kernel.inject({ method: 'POST', url: `/api/custom-actions/${id}/test`, body: { params: { msg: 'hi; touch pwned $(touch pwned2) `touch pwned3`' } } });
  assert.equal([response.body.ok, response.body.output], [true, 'hi; touch pwned $(touch pwned2) `touch pwned3`']);
  const box = kernel.kernel.resolve(coreSandbox)!;
  box.shell.setEnabled(false, 'test');
  try {
    const refused = await kernel.inject({ method: 'POST', url: `/api/custom-actions/${id}/test`, body: { params: { msg: 'x' } } });
    assert.equal([refused.status, refused.body.code], [403, 'SHELL_DISABLED']);
  } finally {
    box.shell.setEnabled(true, 'test');
  }
});

test('without the sandbox: shell and code answer 503, http still runs, generate answers 503 without an agent', async () => {
  const bare = await createTestKernel({ plugins: [customActions], config: { 'custom-actions': { fetchAllowedHosts: service.host } } });
  try {
    const make = async (handler: Record<string, unknown>) => (await bare.inject({ method: 'POST', url: '/api/custom-actions', body: { name: `b ${handler.type}`, description: 'd', handler } })).body.action.id;
    for (const handler of [{ type: 'code', code: 'return 1' }, { type: 'shell', command: 'true' }]) {
      const response = await bare.inject({ method: 'POST', url: `/api/custom-actions/${await make(handler)}/test`, body: {} });
      assert.equal([response.status, response.body.code], [503, 'SERVICE_UNAVAILABLE'], handler.type);
    }
    const http = await bare.inject({ method: 'POST', url: `/api/custom-actions/${await make({ type: 'http', url: `${service.url}/x` })}/test`, body: {} });
    assert.equal([http.status, http.body.ok], [200, true]);
    const generate = await bare.inject({ method: 'POST', url: '/api/custom-actions/generate', body: { prompt: 'anything' } });
    assert.equal([generate.status, generate.body.code], [503, 'SERVICE_UNAVAILABLE']);
  } finally {
    await bare.close();
  }
});

test.run();
