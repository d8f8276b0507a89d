// The SDK's SSRF-guarded fetch (shared by the knowledge plugin and custom actions) against a real
// loopback server: every spelling of a private address is refused before a connection is made; the
// loopback server is reachable only when explicitly allowed, and even then not through a redirect.
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isPublicAddress, safeFetch, type SafeFetchOptions } from '../../sdk/index.ts';
import { recordingServer, type Answer, type RecordingServer } from './fixtures/recording-server.ts';

let server: RecordingServer;
let target: RecordingServer;
let port: string;

test.before(async () => {
  target = await recordingServer(() => ({ body: 'internal secret' }));
  server = await recordingServer((request): Answer => {
    if (request.url === '/redirect') return { status: 302, headers: { location: `${target.url}/` } };
    if (request.url === '/big') return { body: 'x'.repeat(5000) };
    if (request.url === '/big-declared') return { headers: { 'content-length': '5000' }, body: 'y'.repeat(5000) };
    return { body: 'hello' };
  });
  port = server.host.split(':')[1]!;
});
test.after(async () => {
  await server.close();
  await target.close();
});

async function refused(url: string, options: SafeFetchOptions = {}): Promise<{ status: number; code: string }> {
  try {
    await safeFetch(url, options);
  } catch (error) {
    return { status: (error as { status: number }).status, code: (error as { code: string }).code };
  }
  throw new Error(`${url} was fetched`);
}

test('loopback in every spelling is refused: dotted, decimal, octal, hex, IPv6, IPv4-mapped IPv6', async () => {
  for (const host of ['127.0.0.1', '2130706433', '0177.0.0.1', '0x7f000001', '0x7f.1', '127.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '0.0.0.0', 'localhost', 'LOCALHOST', 'localhost.']) {
    assert.equal(await refused(`http://${host}:${port}/`), { status: 400, code: 'URL_NOT_ALLOWED' }, host);
  }
  assert.is(server.requests.length, 0, 'no request reached the server');
});

test('private, link-local (cloud metadata), CGNAT and other reserved ranges are refused', async () => {
  for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://172.16.0.1/', 'http://100.64.0.1/', 'http://[fe80::1]/', 'http://[fd00::1]/', 'http://224.0.0.1/']) {
    assert.equal(await refused(url, { timeoutMs: 1000 }), { status: 400, code: 'URL_NOT_ALLOWED' }, url);
  }
  assert.not.ok(isPublicAddress('::ffff:169.254.169.254'));
  assert.not.ok(isPublicAddress('::ffff:8.8.8.8'), 'IPv4-mapped IPv6 forms are refused');
});

test('public addresses pass the guard, IPv4 and IPv6 alike', () => {
  for (const address of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) assert.ok(isPublicAddress(address), address);
});

test('a host name that resolves to loopback is refused after resolution', async () => {
  const names = ['ip6-localhost', 'localhost.localdomain', hostname()];
  const checked: string[] = [];
  for (const name of names) {
    const addresses = await lookup(name, { all: true }).catch(() => []);
    if (!addresses.length || addresses.some((a) => isPublicAddress(a.address))) continue;
    assert.equal(await refused(`http://${name}:${port}/`), { status: 400, code: 'URL_NOT_ALLOWED' }, name);
    checked.push(name);
  }
  assert.ok(checked.length > 0, `one of ${names.join(', ')} resolves to a local address here`);
  assert.is(server.requests.length, 0);
});

test('non-http schemes and credentials in the URL are refused', async () => {
  for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'gopher://127.0.0.1:70/', `http://user:pass@127.0.0.1:${port}/`]) {
    assert.is((await refused(url)).code, 'URL_NOT_ALLOWED', url);
  }
});

test('an explicitly allowed loopback server is reachable', async () => {
  const response = await safeFetch(`${server.url}/hello`, { allowedHosts: [server.host] });
  assert.equal([response.status, response.text(), response.address], [200, 'hello', '127.0.0.1']);
});

test('a redirect from the allowed server to another loopback port is refused', async () => {
  assert.equal(await refused(`${server.url}/redirect`, { allowedHosts: [server.host] }), { status: 400, code: 'URL_NOT_ALLOWED' });
  assert.is(target.requests.length, 0, 'the redirect target was never contacted');
});

test('the allowance is per host:port, not for the whole loopback', async () => {
  assert.is((await refused(`${target.url}/`, { allowedHosts: [server.host] })).code, 'URL_NOT_ALLOWED');
});

test('the size cap applies to streamed and declared bodies', async () => {
  assert.equal(await refused(`${server.url}/big`, { allowedHosts: [server.host], maxBytes: 1000 }), { status: 413, code: 'PAYLOAD_TOO_LARGE' });
  assert.equal(await refused(`${server.url}/big-declared`, { allowedHosts: [server.host], maxBytes: 1000 }), { status: 413, code: 'PAYLOAD_TOO_LARGE' });
});

test('an invalid header value is refused as a client error and leaves no timer behind', async () => {
  const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
  const before = timers();
  const result = await refused(`${server.url}/`, { allowedHosts: [server.host], headers: { 'x-a': 'ok\r\nx-injected: yes' } });
  assert.equal(result, { status: 400, code: 'INVALID_REQUEST' });
  assert.is(timers(), before, 'a pending deadline timer would fire later and crash the process');
});

test.run();
