// Triggers with the real agent runtime and the offline model: a manual run drives an autonomy cycle
// (inject_now) or queues the instructions (next_autonomy_cycle), a scheduled run really fires on its
// timer, runs reach /ws clients, and a stopped agent makes runs fail and the workflow status degraded.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import triggers from '../../plugins/triggers/index.ts';
import type { TestKernel } from '../../sdk/testing.ts';
import { startAgentKernel, until } from './agent-helpers.ts';

interface AgentEvent { runId: string; payload: { stream: string; phase: string; text?: string; source?: string; instructions?: number } }

let k: TestKernel;
test.before(async () => { k = await startAgentKernel({ plugins: [triggers] }); });
test.after(() => k.close());

const create = async (body: Record<string, unknown>) => {
  const response = await k.inject({ method: 'POST', url: '/api/triggers', body: { displayName: 'Chores', triggerType: 'interval', intervalMs: 3_600_000, ...body } });
  assert.is(response.status, 201, response.text);
  return response.body.trigger as { id: string };
};
const execute = (id: string) => k.inject({ method: 'POST', url: `/api/triggers/${id}/execute` });
const events = async () => (await k.inject({ url: '/api/agent/events?limit=1000' })).body.events as AgentEvent[];
/** The autonomy cycle (start and thought) the agent ran for a source. */
async function cycleOf(source: string) {
  const all = await events();
  const start = all.find((e) => e.payload.stream === 'autonomy' && e.payload.phase === 'start' && e.payload.source === source);
  const thought = start && all.find((e) => e.runId === start.runId && e.payload.phase === 'thought');
  return start && thought && { start, thought };
}

test('execute with inject_now runs an autonomy cycle on the instructions, recorded in the agent event log', async () => {
  const trigger = await create({ instructions: 'Water the plants' });
  const response = await execute(trigger.id);
  assert.is(response.status, 200, response.text);
  const { run, trigger: after } = response.body;
  assert.equal([run.status, run.mode, run.source, run.error], ['success', 'ran', 'manual', undefined]);
  assert.equal([after.runCount, after.lastStatus, after.lastError], [1, 'success', undefined]);
  const cycle = await cycleOf(`trigger:${trigger.id}`);
  assert.ok(cycle, 'an autonomy cycle with the trigger as its source');
  assert.is(cycle.start.payload.instructions, 1);
  assert.match(cycle.thought.payload.text!, /Water the plants/);
});

test('execute with next_autonomy_cycle queues the instructions instead', async () => {
  const trigger = await create({ instructions: 'Summarise the day', wakeMode: 'next_autonomy_cycle' });
  const { run } = (await execute(trigger.id)).body;
  assert.equal([run.status, run.mode], ['success', 'queued']);
  assert.is(await cycleOf(`trigger:${trigger.id}`), undefined, 'no cycle ran yet');
});

test('a scheduled run really fires on its timer and is broadcast to /ws clients', async () => {
  const ws = new WebSocket(`${(await k.url()).replace('http', 'ws')}/ws`);
  const received: Record<string, unknown>[] = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  await new Promise((resolve) => ws.once('open', resolve));
  try {
    const trigger = await create({ triggerType: 'once', scheduledAtIso: new Date(Date.now() + 1000).toISOString(), instructions: 'Check the mail' });
    const [run] = await until(async () => {
      const runs = (await k.inject({ url: `/api/triggers/${trigger.id}/runs` })).body.runs;
      return runs.length ? runs : undefined;
    }, 'the scheduled run');
    assert.equal([run.status, run.source, run.mode], ['success', 'scheduler', 'ran']);
    const message = await until(() => received.find((m) => m.type === 'trigger-run' && m.triggerId === trigger.id), 'the trigger-run message');
    assert.equal(message, { type: 'trigger-run', triggerId: trigger.id, run });
    const after = (await k.inject({ url: `/api/triggers/${trigger.id}` })).body.trigger;
    assert.equal([after.enabled, after.nextRunAtMs, after.runCount], [false, undefined, 1], 'a once trigger disables itself');
    assert.ok(await cycleOf(`trigger:${trigger.id}`));
  } finally {
    ws.close();
  }
});

test('a stopped agent: runs fail with the agent\'s reason and the workflow status is degraded', async () => {
  assert.equal((await k.inject({ url: '/api/workflow/status' })).body.health, 'ok');
  const trigger = await create({ instructions: 'Tidy up' });
  await k.inject({ method: 'POST', url: '/api/agent/stop' });
  try {
    const { run, trigger: after } = (await execute(trigger.id)).body;
    assert.is(run.status, 'error');
    assert.is(run.error, 'The agent is stopped; start or resume it first');
    assert.equal([after.lastStatus, after.lastError], ['error', run.error]);
    const status = (await k.inject({ url: '/api/workflow/status' })).body;
    assert.equal([status.health, status.reasons], ['degraded', ['the agent is stopped']]);
  } finally {
    await k.inject({ method: 'POST', url: '/api/agent/start' });
  }
  assert.is((await execute(trigger.id)).body.run.status, 'success', 'runs again once the agent is started');
});

test.run();
