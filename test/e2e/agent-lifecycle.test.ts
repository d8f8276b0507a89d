// Lifecycle against the real server process: in-process restart, autonomy events on /ws, event ids
// that keep counting across a process restart, and the sensitive reset.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { SpawnedServer } from '../helpers/server.ts';
import { until } from '../plugins/agent-helpers.ts';
import { postJson, start, stateDir, stop, stopAll, wsClose } from './_helpers.ts';

const TOKEN = 'agent-e2e-token-93be10';
const ENV = { SVC_AUTONOMY_INTERVAL_MS: '100' };
let server: SpawnedServer;
let dir: string;

/** A socket that records every message from the moment it opens (the status comes first). */
function listen(target: SpawnedServer): { ws: WebSocket; received: Record<string, any>[] } {
  const ws = new WebSocket(`${target.url.replace('http', 'ws')}/ws`);
  const received: Record<string, any>[] = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  return { ws, received };
}
const events = async (query = '') => (await (await fetch(`${server.url}/api/agent/events${query}`)).json()) as { events: { eventId: string; payload: Record<string, unknown> }[]; latestEventId: string };

test.before(async () => {
  dir = stateDir();
  server = await start({ stateDir: dir, env: ENV });
});
test.after(async () => { await stopAll(); });

test('POST /api/restart restarts the runtime in-process: restarting → running on /ws, same process', async () => {
  const { ws, received } = listen(server);
  try {
    await until(() => received.length >= 3, 'status and buffered events');
    assert.is(received[0]!.type, 'status');
    assert.ok(received.slice(1).every((m) => m.type === 'agent_event' && m.version === 1));
    const pid = server.process.pid;
    const res = await postJson(`${server.url}/api/restart`, {});
    assert.is(res.status, 200);
    assert.is(((await res.json()) as { status: { state: string } }).status.state, 'running');
    const states = await until(() => {
      const seen = received.filter((m) => m.type === 'status').map((m) => m.state);
      return seen.includes('restarting') && seen.at(-1) === 'running' && seen;
    }, 'restarting then running');
    assert.equal(states.slice(-2), ['restarting', 'running']);
    assert.is(server.process.pid, pid);
    assert.is(server.process.exitCode, null);
  } finally {
    await wsClose(ws);
  }
});

test('autonomy runs on its interval and its events reach /ws as they happen', async () => {
  const { ws, received } = listen(server);
  try {
    await until(() => received.length > 0, 'the status message');
    assert.equal(await (await postJson(`${server.url}/api/agent/autonomy`, { enabled: true })).json(), { enabled: true, thinking: false, lastEventAt: null });
    const thought = await until(() => received.find((m) => m.type === 'agent_event' && m.payload.stream === 'autonomy' && m.payload.phase === 'thought'), 'a thought on /ws');
    assert.match(thought.payload.text, /^Reflecting on /);
    await postJson(`${server.url}/api/agent/autonomy`, { enabled: false });
  } finally {
    await wsClose(ws);
  }
});

test('event ids keep increasing across a process restart; an old cursor still reads forward', async () => {
  const before = await events();
  await stop(server);
  server = await start({ stateDir: dir, env: ENV });
  const after = await events();
  assert.ok(Number(after.latestEventId) > Number(before.latestEventId));
  const forward = await events(`?after=${before.latestEventId}`);
  assert.ok(forward.events.length > 0);
  assert.ok(forward.events.every((e) => Number(e.eventId) > Number(before.latestEventId)));
  assert.equal(forward.events[0]!.payload, { stream: 'lifecycle', state: 'starting', previous: 'not_started' });
});

test('reset is sensitive: loopback without a configured token may; with a token it must be sent', async () => {
  assert.is((await postJson(`${server.url}/api/agent/reset`, {})).status, 200);
  const locked = await start({ env: { SVC_API_TOKEN: TOKEN } });
  const refused = await postJson(`${locked.url}/api/agent/reset`, {});
  assert.is(refused.status, 401);
  const allowed = await postJson(`${locked.url}/api/agent/reset`, {}, { authorization: `Bearer ${TOKEN}` });
  assert.is(allowed.status, 200);
  assert.is(((await allowed.json()) as { status: { state: string } }).status.state, 'running');
});

test.run();
