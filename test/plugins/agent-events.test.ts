// The agent event ring buffer: query semantics, persistence and monotonic ids across restarts, /ws delivery.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { TestKernel } from '../../sdk/testing.ts';
import { startAgentKernel, until } from './agent-helpers.ts';

interface AgentEvent { type: string; version: number; eventId: string; ts: number; runId: string; seq: number; payload: Record<string, unknown> }
interface Page { events: AgentEvent[]; latestEventId: string | null; totalBuffered: number; replayed: number }

const page = async (k: TestKernel, query = ''): Promise<Page> => (await k.inject({ url: `/api/agent/events${query}` })).body;
/** Two lifecycle events per call (running → paused → running). */
async function toggle(k: TestKernel, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await k.inject({ method: 'POST', url: '/api/agent/pause' });
    await k.inject({ method: 'POST', url: '/api/agent/resume' });
  }
}

test('query: latest by default, cursor pages forward, runId and fromSeq filter, bad input 400, unknown cursor 410', async () => {
  const k = await startAgentKernel();
  try {
    await toggle(k, 3);
    const all = await page(k);
    assert.is(all.totalBuffered, 8);
    assert.is(all.replayed, 8);
    assert.is(all.latestEventId, '8');
    assert.equal(all.events.map((e) => e.eventId), ['1', '2', '3', '4', '5', '6', '7', '8']);
    const first = all.events[0]!;
    assert.equal({ type: first.type, version: first.version, seq: first.seq }, { type: 'agent_event', version: 1, seq: 0 });
    assert.type(first.ts, 'number');
    assert.equal((await page(k, '?limit=3')).events.map((e) => e.eventId), ['6', '7', '8'], 'without a cursor: the latest');
    assert.equal((await page(k, '?after=2&limit=3')).events.map((e) => e.eventId), ['3', '4', '5'], 'with a cursor: the next ones');
    assert.equal((await page(k, '?after=8')).events, []);
    const runId = first.runId;
    assert.equal((await page(k, `?runId=${runId}&fromSeq=6`)).events.map((e) => e.seq), [6, 7]);
    assert.equal((await page(k, '?runId=nope')).events, []);
    for (const bad of ['?fromSeq=abc', '?fromSeq=-1', '?limit=0', '?limit=1001', '?limit=x']) {
      const res = await k.inject({ url: `/api/agent/events${bad}` });
      assert.is(res.status, 400, bad);
      assert.is(res.body.code, 'INVALID_REQUEST');
    }
    const expired = await k.inject({ url: '/api/agent/events?after=999' });
    assert.is(expired.status, 410);
    assert.is(expired.body.code, 'CURSOR_EXPIRED');
  } finally {
    await k.close();
  }
});

test('the buffer keeps the newest events up to its capacity, survives a restart, and ids never repeat', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-agent-events-'));
  try {
    let k = await startAgentKernel({ stateDir, agent: { eventCapacity: 10 } });
    await toggle(k, 7);
    const before = await page(k);
    assert.is(before.totalBuffered, 10);
    assert.is(before.latestEventId, '16');
    assert.is(before.events[0]!.eventId, '7');
    assert.is((await k.inject({ url: '/api/agent/events?after=3' })).status, 410, 'an evicted cursor has expired');
    await k.close();

    k = await startAgentKernel({ stateDir, agent: { eventCapacity: 10 } });
    try {
      const after = await page(k);
      assert.is(after.totalBuffered, 10);
      assert.equal(after.events.slice(0, 8).map((e) => e.eventId), ['9', '10', '11', '12', '13', '14', '15', '16'], 'persisted events replay after a restart');
      assert.equal(after.events.slice(8).map((e) => e.eventId), ['17', '18'], 'new ids continue from the high-water mark');
      assert.is.not(after.events[8]!.runId, before.events.at(-1)!.runId, 'a new runtime session is a new run');
      assert.is(after.events[8]!.seq, 0);
      assert.equal((await page(k, '?after=16')).events.map((e) => e.eventId), ['17', '18'], 'a cursor from before the restart still works');
    } finally {
      await k.close();
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('heartbeats are agent events on the runtime session run', async () => {
  const k = await startAgentKernel({ agent: { heartbeatMs: 50 } });
  try {
    const beats = await until(async () => {
      const found = (await page(k)).events.filter((e) => e.payload.stream === 'heartbeat');
      return found.length >= 2 ? found : undefined;
    }, 'two heartbeats');
    assert.is(beats[0]!.payload.state, 'running');
    assert.type(beats[0]!.payload.uptime, 'number');
    assert.is(beats[1]!.runId, beats[0]!.runId);
    assert.is(beats[1]!.seq, beats[0]!.seq + 1);
  } finally {
    await k.close();
  }
});

test('/ws: status on connect, then the buffered events (at most 120), then live events and status changes', async () => {
  const k = await startAgentKernel();
  try {
    await toggle(k, 65);
    const ws = new WebSocket(`${(await k.url()).replace('http', 'ws')}/ws`);
    const received: Record<string, unknown>[] = [];
    ws.on('message', (data) => received.push(JSON.parse(String(data))));
    await until(() => received.length >= 121, 'status and replay');
    assert.is(received[0]!.type, 'status');
    assert.is(received[0]!.state, 'running');
    const replay = received.slice(1, 121) as unknown as AgentEvent[];
    assert.is(replay[0]!.eventId, '13');
    assert.is(replay.at(-1)!.eventId, '132');
    assert.ok(replay.every((e) => e.type === 'agent_event'));
    await k.inject({ method: 'POST', url: '/api/agent/pause' });
    const live = await until(() => received.slice(121).length >= 2 && received.slice(121), 'live messages');
    assert.equal(live.map((m) => m.type).sort(), ['agent_event', 'status']);
    assert.is((live.find((m) => m.type === 'status') as { state: string }).state, 'paused');
    ws.close();
  } finally {
    await k.close();
  }
});

test.run();
