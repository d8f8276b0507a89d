// AgentRuntime.instruct(): trigger instructions run an autonomy cycle now, or wait for the next one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentRuntime, agentTrajectories } from '../../sdk/index.ts';
import type { TestKernel } from '../../sdk/testing.ts';
import { startAgentKernel, until } from './agent-helpers.ts';

interface Event { runId: string; seq: number; payload: { stream: string; phase: string; text?: string; source?: string; instructions?: number } }
const events = async (k: TestKernel) => (await k.inject({ url: '/api/agent/events?limit=1000' })).body.events as Event[];
const thoughtsOf = (all: Event[]) => all.filter((e) => e.payload.stream === 'autonomy' && e.payload.phase === 'thought');

test('inject_now runs one cycle on the instructions at once, recorded under the caller as source', async () => {
  const k = await startAgentKernel();
  try {
    const runtime = k.kernel.resolve(agentRuntime)!;
    const outcome = await runtime.instruct({ text: 'Water the plants\nand check the mail', wakeMode: 'inject_now', source: 'trigger:t1' });
    assert.equal(outcome, { mode: 'ran', text: 'Acting on the instruction: “Water the plants and check the mail”.' });
    const all = await events(k);
    const thought = thoughtsOf(all)[0]!;
    assert.is(thought.payload.text, outcome.mode === 'ran' ? outcome.text : '');
    const start = all.find((e) => e.runId === thought.runId && e.payload.phase === 'start')!;
    assert.is(start.payload.source, 'trigger:t1');
    assert.is(start.payload.instructions, 1);
    assert.is((await k.kernel.resolve(agentTrajectories)!.list({ source: 'trigger:t1' })).total, 1, 'the cycle is a trajectory of its source');
    assert.type(runtime.status().autonomy.lastEventAt, 'number');
  } finally {
    await k.close();
  }
});

test('next_autonomy_cycle queues instructions for the next cycle of the loop, which uses them once', async () => {
  const k = await startAgentKernel({ agent: { autonomyIntervalMs: 80 } });
  try {
    const runtime = k.kernel.resolve(agentRuntime)!;
    assert.equal(await runtime.instruct({ text: 'Summarise the day', wakeMode: 'next_autonomy_cycle', source: 'trigger:t2' }), { mode: 'queued', queued: 1 });
    assert.equal(await runtime.instruct({ text: 'Plan tomorrow', wakeMode: 'next_autonomy_cycle', source: 'trigger:t3' }), { mode: 'queued', queued: 2 });
    assert.is(thoughtsOf(await events(k)).length, 0, 'nothing runs while autonomy is off');
    await k.inject({ method: 'POST', url: '/api/agent/autonomy', body: { enabled: true } });
    const thoughts = await until(async () => { const t = thoughtsOf(await events(k)); return t.length >= 2 ? t : undefined; }, 'two cycles');
    assert.is(thoughts[0]!.payload.text, 'Acting on 2 instructions: “Summarise the day”; “Plan tomorrow”.');
    assert.match(thoughts[1]!.payload.text!, /^Reflecting on /, 'queued instructions are consumed by one cycle');
  } finally {
    await k.close();
  }
});

test('queued instructions survive a restart and are used by the first cycle after it', async () => {
  let k = await startAgentKernel();
  try {
    await k.kernel.resolve(agentRuntime)!.instruct({ text: 'Remember the dentist', wakeMode: 'next_autonomy_cycle', source: 'trigger:t4' });
    k = await k.restart({ config: { agent: { autonomyIntervalMs: 80 } } });
    await k.inject({ method: 'POST', url: '/api/agent/autonomy', body: { enabled: true } });
    const thought = await until(async () => thoughtsOf(await events(k))[0], 'a cycle after the restart');
    assert.is(thought.payload.text, 'Acting on the instruction: “Remember the dentist”.');
  } finally {
    await k.close();
  }
});

test('instruct answers 503 unless the agent runs, and 400 for empty instructions', async () => {
  const k = await startAgentKernel();
  try {
    const runtime = k.kernel.resolve(agentRuntime)!;
    const statusOf = (text: string) => runtime.instruct({ text, wakeMode: 'inject_now', source: 'test' }).then(() => 200, (e: { status: number }) => e.status);
    assert.is(await statusOf('  '), 400);
    await k.inject({ method: 'POST', url: '/api/agent/stop' });
    assert.is(await statusOf('Hello'), 503);
  } finally {
    await k.close();
  }
});

test.run();
