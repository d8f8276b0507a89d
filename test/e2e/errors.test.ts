// Error contract end to end (spec "Errors", spec-gaps "General"): client mistakes are 4xx JSON
// {error, code}, never 500, and the server keeps serving.
import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { raw, start, stopAll } from './_helpers.ts';

// With a token configured, a well-formed pairing attempt with a wrong code is a 403: any 400 below
// comes from body handling, not from "pairing not enabled".
const TOKEN = 'e2e-errors-token-c0ffee';
const AUTH = { authorization: `Bearer ${TOKEN}` };
interface ErrorBody { error: string; code: string; details?: unknown[] }

test.after(async () => { await stopAll(); });

let server: SpawnedServer | undefined;
const srv = async () => (server ??= await start({ env: { SVC_API_TOKEN: TOKEN } }));
const statuses: number[] = [];

const send = async (path: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }, method = 'POST') => {
  const s = await srv();
  const res = await raw(`${s.url}${path}`, { method, headers, body });
  statuses.push(res.status);
  return res;
};
const assertError = (res: { status: number; headers: Record<string, unknown>; json<T>(): T }, status: number, code: string) => {
  assert.is(res.status, status);
  assert.match(String(res.headers['content-type']), /application\/json/);
  const body = res.json<ErrorBody>();
  assert.type(body.error, 'string');
  assert.ok(body.error.length > 0);
  assert.is(body.code, code);
  return body;
};

test('control: a well-formed pairing attempt with a wrong code is 403', async () => {
  const res = await send('/api/auth/pair', JSON.stringify({ code: 'IOIO-IOIO' }));
  assert.is(res.status, 403);
});

test('malformed JSON → 400 INVALID_REQUEST', async () => {
  for (const body of ['{bad', '{"code": "ABCD-EFGH"', '{"code": ABCD}', "{'code': 'x'}"]) {
    assertError(await send('/api/auth/pair', body), 400, 'INVALID_REQUEST');
  }
});

test('non-object JSON and schema violations → 400 INVALID_REQUEST', async () => {
  for (const body of ['null', '"ABCD-EFGH"', '42', '[]', '{}', '{"code": 5}', '{"code": ""}']) {
    assertError(await send('/api/auth/pair', body), 400, 'INVALID_REQUEST');
  }
  const missing = assertError(await send('/api/auth/pair', '{"other": 1}'), 400, 'INVALID_REQUEST');
  assert.ok(Array.isArray(missing.details), 'validation details are listed');
});

test('blocked keys (__proto__, constructor, prototype) anywhere in the body → 400', async () => {
  const bodies = [
    '{"constructor":{}}',
    '{"a":{"prototype":1}}',
    '{"__proto__":{}}',
    '{"code":"IOIO-IOIO","constructor":{}}',
    '{"code":"IOIO-IOIO","a":{"prototype":1}}',
    '{"code":"IOIO-IOIO","__proto__":{"polluted":true}}',
    '{"code":"IOIO-IOIO","list":[{"deep":{"__proto__":{}}}]}',
  ];
  for (const body of bodies) assertError(await send('/api/auth/pair', body), 400, 'INVALID_REQUEST');
});

const nest = (depth: number, inner: string) => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);

test('blocked keys are found at any nesting depth', async () => {
  for (const depth of [70, 1000, 50_000]) {
    for (const key of ['constructor', 'prototype']) {
      const body = `{"code":"IOIO-IOIO","x":${nest(depth, `{"${key}":{}}`)}}`;
      assertError(await send('/api/auth/pair', body), 400, 'INVALID_REQUEST');
    }
  }
  const arrays = `{"code":"IOIO-IOIO","x":${'['.repeat(10_000)}{"prototype":1}${']'.repeat(10_000)}}`;
  assertError(await send('/api/auth/pair', arrays), 400, 'INVALID_REQUEST');
});

test('deeply nested bodies without blocked keys are handled normally (no 500)', async () => {
  const deep = await send('/api/auth/pair', `{"code":"IOIO-IOIO","x":${nest(100_000, '1')}}`);
  assert.is(deep.status, 403, 'reaches the handler: wrong code');
});

test('oversize body (> 1 MiB) → 413 PAYLOAD_TOO_LARGE', async () => {
  const big = JSON.stringify({ code: 'A'.repeat(1024 * 1024 + 100) });
  assertError(await send('/api/auth/pair', big), 413, 'PAYLOAD_TOO_LARGE');
  // Just under the limit is parsed (and then fails validation: the code is too long), not 413.
  const under = JSON.stringify({ code: 'A'.repeat(1024 * 1024 - 100) });
  assertError(await send('/api/auth/pair', under), 400, 'INVALID_REQUEST');
});

test('oversize chunked body (no Content-Length) → 413 PAYLOAD_TOO_LARGE', async () => {
  const s = await srv();
  // The body is sent but not ended: the server must answer once the limit is crossed, without waiting
  // for the rest (and the client does not race a connection reset by writing more).
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${s.url}/api/auth/pair`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        req.destroy();
        try {
          assert.is((JSON.parse(text) as ErrorBody).code, 'PAYLOAD_TOO_LARGE');
          resolve(res.statusCode ?? 0);
        } catch (error) { reject(error); }
      });
    });
    req.on('error', reject);
    req.write(`{"code":"${'A'.repeat(1024 * 1024 + 1024)}`);
  });
  statuses.push(status);
  assert.is(status, 413);
});

test('unknown /api route → 404 JSON NOT_FOUND', async () => {
  const s = await srv();
  for (const [method, path] of [['GET', '/api/does-not-exist'], ['POST', '/api/nope/deeper'], ['GET', '/api/healthz']] as const) {
    const res = await raw(`${s.url}${path}`, { method, headers: AUTH });
    statuses.push(res.status);
    assertError(res, 404, 'NOT_FOUND');
  }
});

test('known path, wrong method → 405 with Allow', async () => {
  const s = await srv();
  for (const method of ['DELETE', 'PUT', 'POST']) {
    const res = await raw(`${s.url}/api/health`, { method, headers: AUTH });
    statuses.push(res.status);
    assertError(res, 405, 'METHOD_NOT_ALLOWED');
    assert.match(String(res.headers.allow), /\bGET\b/);
    assert.not.match(String(res.headers.allow), new RegExp(`\\b${method}\\b`));
  }
  const pair = await raw(`${s.url}/api/auth/pair`, { method: 'GET' });
  statuses.push(pair.status);
  assert.is(pair.status, 405);
  assert.match(String(pair.headers.allow), /\bPOST\b/);
});

test('no request above produced a 500, nothing was logged as unhandled, and the server still answers', async () => {
  const s = await srv();
  assert.ok(statuses.length >= 25, `checked ${statuses.length} responses`);
  assert.ok(statuses.every((st) => st >= 400 && st < 500), `statuses: ${statuses.join(', ')}`);
  assert.not.match(s.output(), /Unhandled error/);
  const res = await fetch(`${s.url}/api/health`, { headers: AUTH });
  assert.is(res.status, 200);
  assert.is(((await res.json()) as { ready: boolean }).ready, true);
  assert.is(s.process.exitCode, null, 'still running');
});

test.run();
