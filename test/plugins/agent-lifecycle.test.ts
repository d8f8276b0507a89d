// Status, lifecycle operations, autonomy, self-status and reset, in-process over HTTP.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import diagnostics from '../../plugins/diagnostics/index.ts';
import { agentRuntime, agentTrajectories } from '../../sdk/index.ts';
import type { TestKernel } from '../../sdk/testing.ts';
import { startAgentKernel, until } from './agent-helpers.ts';

const post = (k: TestKernel, url: string, body: unknown = {}) => k.inject({ method: 'POST', url, body });
const chat = (k: TestKernel) => post(k, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hello' }] });

test('GET /api/status carries both spec shapes', async () => {
  const k = await startAgentKernel({ agent: { name: 'Juno' } });
  try {
    const { status, body } = await k.inject({ url: '/api/status' });
    assert.is(status, 200);
    assert.equal(Object.keys(body).sort(), ['agentName', 'autonomy', 'model', 'name', 'pendingRestart', 'pendingRestartReasons', 'provider', 'startedAt', 'state', 'status', 'uptime']);
    assert.is(body.state, 'running');
    assert.is(body.status, 'running');
    assert.is(body.agentName, 'Juno');
    assert.is(body.name, 'Juno');
    assert.is(body.model, 'svc-offline-1');
    assert.equal(body.autonomy, { enabled: false, thinking: false, lastEventAt: null });
    assert.is(body.pendingRestart, false);
    assert.type(body.startedAt, 'number');
    assert.ok(body.uptime >= 0);
  } finally {
    await k.close();
  }
});

test('stop, start, pause, resume change the state for real; chat answers 503 unless running; bad transitions 409', async () => {
  const k = await startAgentKernel({ plugins: [diagnostics] });
  try {
    assert.is((await chat(k)).status, 200);
    assert.is((await post(k, '/api/agent/start')).status, 409, 'already running');
    const stopped = await post(k, '/api/agent/stop');
    assert.is(stopped.status, 200);
    assert.is(stopped.body.ok, true);
    assert.is(stopped.body.status.state, 'stopped');
    assert.is(stopped.body.status.uptime, 0);
    const refused = await chat(k);
    assert.is(refused.status, 503);
    assert.is(refused.body.code, 'SERVICE_UNAVAILABLE');
    assert.match(refused.body.error, /stopped/);
    for (const op of ['stop', 'pause', 'resume']) {
      const res = await post(k, `/api/agent/${op}`);
      assert.is(res.status, 409, op);
      assert.is(res.body.code, 'INVALID_STATE');
    }
    assert.is((await post(k, '/api/agent/start')).body.status.state, 'running');
    const started = (await k.inject({ url: '/api/status' })).body.startedAt;
    assert.is((await post(k, '/api/agent/pause')).body.status.state, 'paused');
    assert.is((await chat(k)).status, 503);
    const conv = (await post(k, '/api/conversations')).body.conversation.id;
    assert.is((await post(k, `/api/conversations/${conv}/messages`, { text: 'hi' })).status, 503);
    const resumed = await post(k, '/api/agent/resume');
    assert.is(resumed.body.status.state, 'running');
    assert.is(resumed.body.status.startedAt, started, 'uptime is kept across a pause');
    assert.is((await chat(k)).status, 200);
    const audit = (await k.inject({ url: '/api/security/audit?type=privileged_capability_invocation' })).body.entries.map((e: { summary: string }) => e.summary);
    assert.ok(audit.includes('Agent stop: running → stopped'), 'lifecycle operations are audited');
    assert.ok(audit.includes('Agent pause: running → paused'));
  } finally {
    await k.close();
  }
});

test('restart and its alias restart in-process and clear pending restart reasons', async () => {
  const k = await startAgentKernel();
  try {
    const before = (await k.inject({ url: '/api/status' })).body;
    k.kernel.resolve(agentRuntime)!.requireRestart('shell permission changed');
    const pending = (await k.inject({ url: '/api/status' })).body;
    assert.is(pending.pendingRestart, true);
    assert.equal(pending.pendingRestartReasons, ['shell permission changed']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const restarted = await post(k, '/api/agent/restart');
    assert.is(restarted.status, 200);
    assert.is(restarted.body.status.state, 'running');
    assert.is(restarted.body.status.pendingRestart, false);
    assert.ok(restarted.body.status.startedAt > before.startedAt);
    await post(k, '/api/agent/stop');
    assert.is((await post(k, '/api/restart')).body.status.state, 'running', 'restart also starts a stopped agent');
    const events = (await k.inject({ url: '/api/agent/events' })).body.events.filter((e: { payload: { stream: string } }) => e.payload.stream === 'lifecycle');
    assert.equal(events.map((e: { payload: { state: string } }) => e.payload.state), ['starting', 'running', 'restarting', 'running', 'stopped', 'restarting', 'running']);
  } finally {
    await k.close();
  }
});

test('autonomy: a loop that really runs on its interval, emits events, stops with the agent', async () => {
  const k = await startAgentKernel({ agent: { autonomyIntervalMs: 60 } });
  try {
    assert.equal((await k.inject({ url: '/api/agent/autonomy' })).body, { enabled: false, thinking: false, lastEventAt: null });
    const enabled = await post(k, '/api/agent/autonomy', { enabled: true });
    assert.is(enabled.status, 200);
    assert.is(enabled.body.enabled, true);
    assert.is((await post(k, '/api/agent/autonomy', { enabled: 'yes' })).status, 400);
    const thoughts = await until(async () => {
      const events = (await k.inject({ url: '/api/agent/events?limit=1000' })).body.events as { runId: string; seq: number; ts: number; payload: { stream: string; phase: string; text?: string } }[];
      const done = events.filter((e) => e.payload.stream === 'autonomy' && e.payload.phase === 'thought');
      return done.length >= 2 ? { events, done } : undefined;
    }, 'two autonomy cycles');
    assert.match(thoughts.done[0]!.payload.text!, /^Reflecting on /);
    const run = thoughts.events.filter((e) => e.runId === thoughts.done[0]!.runId);
    assert.equal(run.map((e) => `${e.seq}:${e.payload.phase}`), ['0:start', '1:thought', '2:end']);
    assert.ok((await k.kernel.resolve(agentTrajectories)!.list({ source: 'autonomy' })).total >= 2, 'each cycle is a trajectory');
    assert.ok((await k.inject({ url: '/api/agent/autonomy' })).body.lastEventAt >= thoughts.done[0]!.ts, 'lastEventAt follows the cycles');

    await post(k, '/api/agent/pause');
    assert.is((await k.inject({ url: '/api/agent/autonomy' })).body.enabled, false, 'pause disables autonomy');
    assert.is((await post(k, '/api/agent/resume')).body.status.autonomy.enabled, true, 'resume re-enables it');
    await post(k, '/api/agent/stop');
    assert.is((await k.inject({ url: '/api/agent/autonomy' })).body.enabled, false, 'stop disables autonomy');
    const count = async () => (await k.inject({ url: '/api/agent/events?limit=1000' })).body.events.filter((e: { payload: { phase?: string } }) => e.payload.phase === 'start').length;
    const settled = await count();
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.is(await count(), settled, 'no cycles while stopped');
    await post(k, '/api/agent/start');
    assert.is((await k.inject({ url: '/api/agent/autonomy' })).body.enabled, false, 'starting again does not re-enable autonomy');
  } finally {
    await k.close();
  }
});

test('self-status reports the agent, its plugins and capabilities', async () => {
  const k = await startAgentKernel();
  try {
    const { body } = await k.inject({ url: '/api/agent/self-status' });
    assert.is(body.state, 'running');
    assert.is(body.provider, 'offline');
    assert.ok(body.plugins.active.includes('agent') && body.plugins.active.includes('memory'));
    assert.is(body.plugins.totalActive, body.plugins.active.length);
    assert.equal(body.capabilities.actions, ['REMEMBER']);
    assert.equal(body.capabilities.contextProviders, ['memory']);
    assert.equal(body.capabilities.modelProviders, ['offline']);
    assert.is(body.capabilities.memory, true);
    assert.is(body.capabilities.knowledge, false);
    assert.equal(body.wallet, { hasWallet: false, evmAddress: null, solanaAddress: null });
  } finally {
    await k.close();
  }
});

test('reset (sensitive) wipes character, conversations, memories, messages, trajectories and autonomy, then runs on defaults', async () => {
  const k = await startAgentKernel();
  try {
    await k.inject({ method: 'PUT', url: '/api/character', body: { name: 'Custom', topics: ['chess'] } });
    const conv = (await post(k, '/api/conversations')).body.conversation.id;
    await post(k, `/api/conversations/${conv}/messages`, { text: 'remember that the door code is 4711' });
    await post(k, '/api/memory/remember', { text: 'bananas are berries' });
    await post(k, '/api/agent/autonomy', { enabled: true });
    await chat(k);
    const lastEvent = Number((await k.inject({ url: '/api/agent/events' })).body.latestEventId);

    const reset = await post(k, '/api/agent/reset');
    assert.is(reset.status, 200);
    assert.is(reset.body.status.state, 'running');
    assert.is(reset.body.status.agentName, 'Eliza');
    assert.is(reset.body.status.autonomy.enabled, false);
    assert.equal((await k.inject({ url: '/api/character' })).body.character.topics, ['your notes and documents', 'getting things done', 'ideas worth exploring']);
    assert.equal((await k.inject({ url: '/api/conversations' })).body.conversations, []);
    assert.equal((await k.inject({ url: '/api/memory/search?q=door+code' })).body.results, []);
    assert.equal((await k.inject({ url: '/api/memory/search?q=bananas' })).body.results, []);
    assert.is((await k.kernel.resolve(agentTrajectories)!.list()).total, 0);
    const events = (await k.inject({ url: '/api/agent/events' })).body;
    assert.ok(Number(events.latestEventId) > lastEvent, 'event ids keep counting after a reset');
  } finally {
    await k.close();
  }
});

test.run();
