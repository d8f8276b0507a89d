// End-to-end pairing state table (spec "Pairing code", "Authentication endpoints", Authentication 5–6).
// The attempt limit is per server process, so scenarios that count attempts get their own server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { postJson, sleep, start, startAll, stopAll, waitFor } from './_helpers.ts';

const TOKEN = 'e2e-pairing-token-5b1d';
const CODE = /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/;
const LOGGED_CODE = /Pairing code: ([A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4})/g;
/** Never a valid code: I and O are not in the alphabet. */
const IMPOSSIBLE = 'IOIO-IOIO';

interface Status { required: boolean; pairingEnabled: boolean; expiresAt: number | null }
interface ErrorBody { error: string; code: string }

test.after(async () => { await stopAll(); });

const loggedCodes = (server: SpawnedServer) => [...server.output().matchAll(LOGGED_CODE)].map((m) => m[1]!);
const status = async (server: SpawnedServer) => {
  const res = await fetch(`${server.url}/api/auth/status`);
  assert.is(res.status, 200);
  return (await res.json()) as Status;
};
const pair = (server: SpawnedServer, code: unknown) => postJson(`${server.url}/api/auth/pair`, { code });
/** Waits until the server has printed a code not in `seen`, and returns it. */
const newCode = (server: SpawnedServer, seen: string[]) =>
  waitFor(() => loggedCodes(server).filter((c) => !seen.includes(c)).at(-1), 10_000, 'a new pairing code in the server output');

let main: SpawnedServer | undefined;
const mainServer = async () => (main ??= await start({ env: { SVC_API_TOKEN: TOKEN } }));
const seen: string[] = [];

test('with a token: status is {required: true, pairingEnabled: true, expiresAt: number} and the code is printed', async () => {
  const server = await mainServer();
  const before = Date.now();
  const body = await status(server);
  assert.equal(Object.keys(body).sort(), ['expiresAt', 'pairingEnabled', 'required']);
  assert.is(body.required, true);
  assert.is(body.pairingEnabled, true);
  assert.type(body.expiresAt, 'number');
  assert.ok(body.expiresAt! > before, 'expiry lies in the future');
  assert.ok(body.expiresAt! <= Date.now() + 10 * 60 * 1000, 'valid at most 10 minutes');
  const code = await newCode(server, seen);
  assert.match(code, CODE);
  // The printed code is the one status reports on: same expiry.
  assert.ok(server.output().includes(new Date(body.expiresAt!).toISOString()), 'printed with its validity');
  // Status is idempotent while the code is active.
  assert.is((await status(server)).expiresAt, body.expiresAt);
  assert.equal(loggedCodes(server), [code], 'no second code while the first is active');
  seen.push(code);
});

test('wrong code → 403 (attempt 1)', async () => {
  const server = await mainServer();
  const res = await pair(server, IMPOSSIBLE);
  assert.is(res.status, 403);
  const body = (await res.json()) as ErrorBody;
  assert.type(body.error, 'string');
  assert.type(body.code, 'string');
});

test('lower-case code → {token} equal to the configured token (attempt 2); the code is one-time (attempt 3 → 403)', async () => {
  const server = await mainServer();
  const code = seen.at(-1)!;
  const res = await pair(server, code.toLowerCase());
  assert.is(res.status, 200);
  assert.equal((await res.json()) as { token: string }, { token: TOKEN });
  const again = await pair(server, code);
  assert.is(again.status, 403, 're-using a consumed code is refused');
});

test('a new code is issued after success; the no-dash form works (attempt 4)', async () => {
  const server = await mainServer();
  const body = await status(server);
  assert.is(body.pairingEnabled, true);
  assert.type(body.expiresAt, 'number');
  const code = await newCode(server, seen);
  assert.match(code, CODE);
  assert.not.ok(seen.includes(code), 'a different code');
  seen.push(code);
  const res = await pair(server, code.replace('-', ''));
  assert.is(res.status, 200);
  assert.is(((await res.json()) as { token: string }).token, TOKEN);
});

test('a spaced, mixed-case variant works too (attempt 5)', async () => {
  const server = await mainServer();
  await status(server);
  const code = await newCode(server, seen);
  seen.push(code);
  const spaced = ` ${code.slice(0, 2)} ${code.slice(2, 4).toLowerCase()} - ${code.slice(5, 7)} ${code.slice(7).toLowerCase()} `;
  const res = await pair(server, spaced);
  assert.is(res.status, 200);
  assert.is(((await res.json()) as { token: string }).token, TOKEN);
});

test('6th attempt from the same IP inside 10 minutes → 429 RATE_LIMITED, even with the right code', async () => {
  const server = await mainServer();
  await status(server);
  const code = await newCode(server, seen);
  seen.push(code);
  const res = await pair(server, code);
  assert.is(res.status, 429);
  const body = (await res.json()) as ErrorBody & { token?: string };
  assert.is(body.code, 'RATE_LIMITED');
  assert.is(body.token, undefined);
  assert.is((await pair(server, IMPOSSIBLE)).status, 429, 'still limited');
});

test('pairing outcomes are audited (policy_decision) without the token', async () => {
  const server = await mainServer();
  const res = await fetch(`${server.url}/api/security/audit?type=policy_decision`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.is(res.status, 200);
  const text = await res.text();
  const { entries } = JSON.parse(text) as { entries: { summary: string; severity: string }[] };
  assert.is(entries.filter((e) => /Pairing succeeded/.test(e.summary)).length, 3);
  assert.ok(entries.some((e) => /Pairing refused: rate-limited/.test(e.summary)));
  assert.ok(entries.some((e) => /Pairing refused: invalid/.test(e.summary)));
  assert.not.ok(text.includes(TOKEN));
});

test('expired code → 410 and a new, different code is printed; an expired code is rotated on the next status', async () => {
  const server = await start({ env: { SVC_API_TOKEN: TOKEN, SVC_PAIRING_CODE_TTL_MS: '1500' } });
  const first = await status(server);
  const [c1] = loggedCodes(server);
  assert.ok(c1);
  // The configured validity applies (also keeps the wait below short).
  assert.ok(first.expiresAt! <= Date.now() + 1500, 'SVC_PAIRING_CODE_TTL_MS is honoured');
  await sleep(first.expiresAt! - Date.now() + 200);
  const res = await pair(server, c1);
  assert.is(res.status, 410);
  assert.type(((await res.json()) as ErrorBody).error, 'string');
  const c2 = await newCode(server, [c1!]);
  assert.is.not(c2, c1);
  const second = await status(server);
  assert.ok(second.expiresAt! > first.expiresAt!, 'a later expiry');
  // Expired code, next request is a status call: a fresh code again.
  const printed = loggedCodes(server);
  await sleep(second.expiresAt! - Date.now() + 200);
  const third = await status(server);
  assert.ok(third.expiresAt! > second.expiresAt!);
  const c3 = await newCode(server, printed);
  assert.not.ok(printed.includes(c3));
});

// The remaining configurations each need their own process; they start two at a time.
let others: Promise<Record<'open' | 'disabled' | 'cloud' | 'cloudNoToken', SpawnedServer>> | undefined;
const otherServers = () => (others ??= startAll([
  {},
  { env: { SVC_API_TOKEN: TOKEN, SVC_PAIRING_DISABLED: '1' } },
  { env: { SVC_API_TOKEN: TOKEN, SVC_CLOUD_PROVISIONED: '1' } },
  { env: { SVC_CLOUD_PROVISIONED: '1' } },
]).then(([open, disabled, cloud, cloudNoToken]) => ({ open: open!, disabled: disabled!, cloud: cloud!, cloudNoToken: cloudNoToken! })));

test('no token: status {required: false, pairingEnabled: false, expiresAt: null}; pair → 400; no code printed', async () => {
  const { open } = await otherServers();
  assert.equal(await status(open), { required: false, pairingEnabled: false, expiresAt: null });
  const res = await pair(open, 'ABCD-EFGH');
  assert.is(res.status, 400);
  assert.type(((await res.json()) as ErrorBody).error, 'string');
  assert.equal(loggedCodes(open), []);
  assert.match(open.output(), /Pairing:\s+off/);
});

test('SVC_PAIRING_DISABLED=1: pair → 403; status reports pairing off; no code printed', async () => {
  const { disabled } = await otherServers();
  const res = await pair(disabled, 'ABCD-EFGH');
  assert.is(res.status, 403);
  assert.equal(await status(disabled), { required: true, pairingEnabled: false, expiresAt: null });
  assert.equal(loggedCodes(disabled), []);
});

test('SVC_CLOUD_PROVISIONED=1 with a token: status {required: false, pairingEnabled: false, expiresAt: null}; pairing disabled', async () => {
  const { cloud } = await otherServers();
  assert.equal(await status(cloud), { required: false, pairingEnabled: false, expiresAt: null });
  assert.is((await pair(cloud, 'ABCD-EFGH')).status, 403);
  assert.equal(loggedCodes(cloud), []);
});

test('SVC_CLOUD_PROVISIONED=1 without a token: the normal (no token) flow applies', async () => {
  const { cloudNoToken } = await otherServers();
  assert.equal(await status(cloudNoToken), { required: false, pairingEnabled: false, expiresAt: null });
  assert.is((await pair(cloudNoToken, 'ABCD-EFGH')).status, 400);
});

test.run();
