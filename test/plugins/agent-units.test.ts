// Units of the agent runtime that need no kernel: action lines, error mapping, registries, the state machine.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError, roomIdFor } from '../../sdk/index.ts';
import { ActionLineFilter, parseActionLine } from '../../plugins/agent/action-line.ts';
import { Lifecycle } from '../../plugins/agent/lifecycle.ts';
import { modelFailure } from '../../plugins/agent/model-errors.ts';
import { createRegistry } from '../../sdk/index.ts';

test('parseActionLine reads the documented convention and nothing else', () => {
  assert.equal(parseActionLine('ACTION: CHECK_WEATHER {"city": "Paris", "days": 3}'), { name: 'CHECK_WEATHER', params: { city: 'Paris', days: '3' } });
  assert.equal(parseActionLine('  ACTION: remember'), { name: 'REMEMBER', params: {} });
  assert.equal(parseActionLine('ACTION: PING {"a":}'), { name: 'PING', params: {} }, 'an unparsable object still names the action');
  assert.is(parseActionLine('ACTION: PING now please'), undefined, 'text after the name is not the convention');
  assert.is(parseActionLine('The ACTION: PING line is mid-sentence'), undefined);
  assert.is(parseActionLine('Action: PING'), undefined, 'the keyword is upper case');
});

test('ActionLineFilter streams prose at once and takes action lines out, even split across chunks', () => {
  const filter = new ActionLineFilter();
  const out: string[] = [];
  for (const chunk of ['Sure', ', checking', ' now.\nAC', 'TION: CHECK_', 'WEATHER {"city":"Oslo"}', '\nDone']) out.push(filter.push(chunk));
  out.push(filter.end());
  assert.equal(out, ['Sure', ', checking', ' now.\n', '', '', 'Done', '']);
  assert.equal(filter.actions, [{ name: 'CHECK_WEATHER', params: { city: 'Oslo' } }]);
});

test('ActionLineFilter holds only text that may still become an action line', () => {
  const filter = new ActionLineFilter();
  assert.is(filter.push('A'), '', '"A" could start ACTION:');
  assert.is(filter.push('s I said'), 'As I said');
  assert.is(filter.push('\nACTION: PING'), '\n');
  assert.is(filter.end(), '', 'a final action line without newline is still an action');
  assert.equal(filter.actions.map((a) => a.name), ['PING']);
});

test('modelFailure maps provider errors to the documented statuses', () => {
  const map = (error: unknown) => modelFailure(error, 'vendor', undefined, 1000);
  const key = map(Object.assign(new Error('Incorrect API key'), { status: 401 }));
  assert.is(key.status, 502, 'a vendor rejecting its key must not look like our own 401');
  assert.is(key.code, 'MODEL_AUTH_FAILED');
  assert.match(key.message, /vendor.*rejected its API key.*Incorrect API key/);
  const mapped = new HttpError(504, 'MODEL_TIMEOUT', 'vendor silent');
  assert.is(map(mapped), mapped, 'errors a provider plugin already mapped pass through unchanged');
  assert.is(map(Object.assign(new Error('slow down'), { status: 429 })).status, 429);
  assert.is(map(Object.assign(new Error('overloaded'), { statusCode: 503 })).status, 503);
  assert.is(map(Object.assign(new Error('bad gateway'), { status: 500 })).status, 502);
  assert.is(map(Object.assign(new Error('model not found'), { status: 404 })).status, 502, 'a vendor 4xx is not the client\'s fault');
  const down = map(Object.assign(new Error('Connection error.'), { cause: Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } }) }));
  assert.is(down.status, 503);
  assert.match(down.message, /unreachable \(ECONNREFUSED\)/);
  assert.is(map(new Error('boom')).status, 502);
  assert.is(map('a string').code, 'MODEL_ERROR');
  assert.is(modelFailure(new Error('aborted'), 'v', 'timeout', 250).code, 'MODEL_TIMEOUT');
  assert.is(modelFailure(new Error('aborted'), 'v', 'client', 250).status, 499);
  assert.is(modelFailure(new Error('aborted'), 'v', 'session', 250).status, 503);
});

test('registries refuse duplicate names (case-insensitively) and removal forgets only the item added', () => {
  const registry = createRegistry<{ name: string; n: number }>('thing');
  const remove = registry.add({ name: 'Alpha', n: 1 });
  assert.throws(() => registry.add({ name: 'ALPHA', n: 2 }), /already registered/);
  registry.add({ name: 'beta', n: 3 });
  assert.is(registry.get('alpha')?.n, 1);
  assert.equal(registry.list().map((i) => i.name), ['Alpha', 'beta']);
  remove();
  remove();
  assert.is(registry.get('alpha'), undefined);
  assert.equal(registry.list().map((i) => i.name), ['beta']);
  assert.throws(() => registry.add({ name: '', n: 0 }), /needs a name/);
});

test('the lifecycle allows only the documented transitions and keeps uptime across a pause', () => {
  let clock = 1000;
  const seen: string[] = [];
  const lifecycle = new Lifecycle((state, previous) => seen.push(`${previous}→${state}`), () => clock);
  for (const op of ['stop', 'pause', 'resume'] as const) assert.throws(() => lifecycle.check(op), (e: HttpError) => e.status === 409 && e.code === 'INVALID_STATE');
  lifecycle.check('start');
  lifecycle.set('starting');
  lifecycle.set('running');
  assert.is(lifecycle.startedAt, 1000);
  clock = 1500;
  lifecycle.set('paused');
  clock = 2000;
  assert.is(lifecycle.uptime(), 1000, 'uptime keeps counting from the start while paused');
  assert.throws(() => lifecycle.check('pause'), /while it is paused/);
  lifecycle.check('resume');
  lifecycle.set('running');
  assert.is(lifecycle.startedAt, 1000, 'resume does not reset uptime');
  lifecycle.set('stopped');
  assert.is(lifecycle.uptime(), 0);
  assert.is(lifecycle.startedAt, null);
  assert.equal(seen, ['not_started→starting', 'starting→running', 'running→paused', 'paused→running', 'running→stopped']);
});

test('roomIdFor is a deterministic UUIDv5-shaped id per scope and key', () => {
  const id = roomIdFor('conversation', 'abc');
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(roomIdFor('conversation', 'abc'), id);
  assert.is.not(roomIdFor('v1', 'abc'), id);
  assert.is.not(roomIdFor('conversation', 'abd'), id);
});

test.run();
