// Unit level: the sensitive-route rule for non-loopback sources, which a single machine cannot
// produce end to end (every connection to the spawned server comes from loopback).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { authorize, createAuthService, presentedToken, presentedWsToken, SENSITIVE_MESSAGE, type AuthSettings } from '../../kernel/http/auth.ts';
import type { Access } from '../../sdk/types.ts';

const REMOTE = '10.0.0.5';
const LOOPBACKS = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];
const open = createAuthService({});
const withToken = createAuthService({ token: 'secret' });
const decide = (access: Access, auth: typeof open, settings: AuthSettings, ip: string, tokenValid = false) => authorize(access, auth, settings, { tokenValid, ip });

test('SENSITIVE_MESSAGE is the spec text', () => {
  assert.is(SENSITIVE_MESSAGE, 'Sensitive endpoint requires API token authentication');
});

test('no token configured: non-loopback sensitive request → 403 with the spec message', () => {
  for (const access of ['sensitive', 'sensitive-strict'] as const) {
    const denied = decide(access, open, {}, REMOTE);
    assert.ok(denied, access);
    assert.is(denied!.status, 403);
    assert.is(denied!.message, 'Sensitive endpoint requires API token authentication');
  }
  assert.is(decide('sensitive', open, {}, '::ffff:10.0.0.5')?.status, 403, 'IPv4-mapped remote address');
  assert.is(decide('sensitive', open, {}, '192.168.1.20')?.status, 403);
});

test('no token configured: token and public routes stay open from any address', () => {
  assert.is(decide('token', open, {}, REMOTE), undefined);
  assert.is(decide('public', open, {}, REMOTE), undefined);
  assert.is(decide('token', open, { production: true }, REMOTE), undefined);
});

test('no token configured: loopback addresses may call sensitive routes', () => {
  for (const ip of LOOPBACKS) {
    assert.is(decide('sensitive', open, {}, ip), undefined, ip);
    assert.is(decide('sensitive-strict', open, {}, ip), undefined, `${ip} (not production)`);
  }
});

test('production: sensitive-strict needs a token even from loopback; plain sensitive does not', () => {
  for (const ip of LOOPBACKS) {
    const denied = decide('sensitive-strict', open, { production: true }, ip);
    assert.is(denied?.status, 403, ip);
    assert.is(denied?.message, SENSITIVE_MESSAGE);
    assert.is(decide('sensitive', open, { production: true }, ip), undefined, ip);
  }
  assert.is(decide('sensitive', open, { production: true }, REMOTE)?.status, 403);
});

test('dev bypass opens sensitive routes from any address, with or without a configured token', () => {
  for (const access of ['sensitive', 'sensitive-strict'] as const) {
    assert.is(decide(access, open, { devBypass: true }, REMOTE), undefined, `${access} without token`);
    assert.is(decide(access, withToken, { devBypass: true }, REMOTE), undefined, `${access} with token configured`);
  }
  // It does not open plain token routes when a token is configured.
  assert.is(decide('token', withToken, { devBypass: true }, REMOTE)?.status, 401);
});

test('token configured: every non-public route needs a valid token, from any address', () => {
  for (const access of ['token', 'sensitive', 'sensitive-strict'] as const) {
    for (const ip of [REMOTE, ...LOOPBACKS]) {
      const denied = decide(access, withToken, {}, ip);
      assert.is(denied?.status, 401, `${access} from ${ip}`);
      assert.is(denied?.code, 'UNAUTHORIZED');
      assert.is(decide(access, withToken, {}, ip, true), undefined, `${access} from ${ip} with token`);
    }
  }
  assert.is(decide('public', withToken, {}, REMOTE), undefined);
});

test('verify is exact (and trims the configured token)', () => {
  const auth = createAuthService({ token: '  secret  ' });
  assert.ok(auth.tokenConfigured);
  assert.ok(auth.verify('secret'));
  assert.not.ok(auth.verify('secre'));
  assert.not.ok(auth.verify('secret2'));
  assert.not.ok(auth.verify(undefined));
  assert.not.ok(createAuthService({ token: '   ' }).tokenConfigured, 'blank token counts as unset');
  assert.not.ok(open.verify(''));
});

test('header priority: Bearer, x-svc-token, x-svcos-token, then x-api-key / x-api-token', () => {
  assert.is(presentedToken({ authorization: 'Bearer a', 'x-svc-token': 'b', 'x-svcos-token': 'c', 'x-api-key': 'd' }), 'a');
  assert.is(presentedToken({ 'x-svc-token': 'b', 'x-svcos-token': 'c', 'x-api-key': 'd' }), 'b');
  assert.is(presentedToken({ 'x-svcos-token': 'c', 'x-api-key': 'd', 'x-api-token': 'e' }), 'c');
  assert.is(presentedToken({ 'x-api-key': 'd' }), 'd');
  assert.is(presentedToken({ 'x-api-token': 'e' }), 'e');
  assert.is(presentedToken({}), undefined);
});

test('/ws query token: only with the switch, headers first, then token, apiKey, api_key', () => {
  const query = new URLSearchParams('token=t&apiKey=k&api_key=u');
  assert.is(presentedWsToken({}, query, {}), undefined);
  assert.is(presentedWsToken({}, query, { allowWsQueryToken: true }), 't');
  assert.is(presentedWsToken({}, new URLSearchParams('apiKey=k&api_key=u'), { allowWsQueryToken: true }), 'k');
  assert.is(presentedWsToken({}, new URLSearchParams('api_key=u'), { allowWsQueryToken: true }), 'u');
  assert.is(presentedWsToken({ 'x-api-key': 'h' }, query, { allowWsQueryToken: true }), 'h');
});

test.run();
