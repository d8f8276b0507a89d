// The workbench overview: counts, and availability of triggers, life-ops and agent autonomy with and
// without the optional services — including services loaded after the workbench, and a failing one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import workbench from '../../plugins/workbench/index.ts';
import { definePlugin, lifeOps, triggerDirectory, type LifeOpsOverview, type TriggerSummary } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';
import { startAgentKernel } from './agent-helpers.ts';

const TRIGGERS: TriggerSummary[] = [
  { id: 't1', displayName: 'Morning digest', enabled: true, schedule: 'cron 0 8 * * *' },
  { id: 't2', displayName: 'Hourly check', enabled: false, schedule: 'every 1h' },
  { id: 't3', displayName: 'Standup', enabled: true, schedule: 'once 2030-01-01T09:00:00.000Z' },
];
const LIFE_OPS: LifeOpsOverview = {
  occurrences: [{ id: 'o1' }], goals: [{ id: 'g1' }, { id: 'g2' }], reminders: [],
  summary: { activeOccurrenceCount: 1, overdueOccurrenceCount: 0, snoozedOccurrenceCount: 0, activeReminderCount: 0, activeGoalCount: 2 },
};

/** Stands in for the triggers and life-ops plugins; `failing` makes the trigger directory throw. */
const services = (failing = false) => definePlugin({
  id: 'workbench-test-services',
  version: '0.0.1',
  provides: [triggerDirectory, lifeOps],
  setup(ctx) {
    ctx.provide(triggerDirectory, { summaries: async () => { if (failing) throw new Error('trigger store offline'); return TRIGGERS; } });
    ctx.provide(lifeOps, { overview: async () => LIFE_OPS });
  },
});

const overview = async (k: TestKernel) => {
  const response = await k.inject({ url: '/api/workbench/overview' });
  assert.is(response.status, 200);
  return response.body;
};
async function seed(k: TestKernel): Promise<void> {
  for (const [name, isCompleted] of [['b task', true], ['A task', false], ['c task', true]] as const) {
    await k.inject({ method: 'POST', url: '/api/workbench/tasks', body: { name, isCompleted } });
  }
  for (const [name, isCompleted] of [['todo 2', false], ['todo 1', true]] as const) {
    await k.inject({ method: 'POST', url: '/api/workbench/todos', body: { name, isCompleted } });
  }
}

test('alone: tasks and todos counted; triggers and life-ops unavailable; autonomy off without an agent', async () => {
  const k = await createTestKernel({ plugins: [workbench] });
  try {
    await seed(k);
    const body = await overview(k);
    assert.equal(body.tasks.map((t: { name: string }) => t.name), ['A task', 'b task', 'c task']);
    assert.equal(body.todos.map((t: { name: string }) => t.name), ['todo 1', 'todo 2']);
    assert.equal(body.triggers, []);
    assert.equal(body.summary, { totalTasks: 3, completedTasks: 2, totalTriggers: 0, activeTriggers: 0, totalTodos: 2, completedTodos: 1 });
    assert.equal(body.autonomy, { enabled: false, thinking: false, lastEventAt: null });
    assert.equal([body.tasksAvailable, body.triggersAvailable, body.todosAvailable, body.lifeopsAvailable], [true, false, true, false]);
    assert.not.ok('lifeops' in body, 'no life-ops block without the service');
  } finally {
    await k.close();
  }
});

test('with trigger directory and life-ops: triggers listed and counted, lifeops block present', async () => {
  const k = await createTestKernel({ plugins: [workbench, services()] });
  try {
    await seed(k);
    const body = await overview(k);
    assert.equal(body.triggers, TRIGGERS);
    assert.equal(body.summary, { totalTasks: 3, completedTasks: 2, totalTriggers: 3, activeTriggers: 2, totalTodos: 2, completedTodos: 1 });
    assert.equal(body.lifeops, LIFE_OPS);
    assert.equal([body.triggersAvailable, body.lifeopsAvailable], [true, true]);
  } finally {
    await k.close();
  }
});

test('services loaded after the workbench are seen, and unloading them makes them unavailable again', async () => {
  const k = await createTestKernel({ plugins: [workbench] });
  try {
    assert.is((await overview(k)).triggersAvailable, false);
    await k.kernel.load(services());
    const loaded = await overview(k);
    assert.equal([loaded.triggersAvailable, loaded.lifeopsAvailable, loaded.summary.totalTriggers], [true, true, 3]);
    await k.kernel.unload('workbench-test-services');
    const unloaded = await overview(k);
    assert.equal([unloaded.triggersAvailable, unloaded.lifeopsAvailable, unloaded.triggers], [false, false, []]);
  } finally {
    await k.close();
  }
});

test('a failing trigger directory is reported unavailable; the rest of the overview still answers', async () => {
  const k = await createTestKernel({ plugins: [workbench, services(true)] });
  try {
    await seed(k);
    const body = await overview(k);
    assert.equal([body.triggersAvailable, body.triggers, body.summary.totalTriggers], [false, [], 0]);
    assert.equal([body.lifeopsAvailable, body.summary.totalTasks], [true, 3]);
  } finally {
    await k.close();
  }
});

test('with the agent plugin: autonomy comes from the runtime status', async () => {
  const k = await startAgentKernel({ plugins: [workbench] });
  try {
    const status = (await k.inject({ url: '/api/status' })).body.autonomy;
    assert.equal((await overview(k)).autonomy, status);
    assert.is((await k.inject({ method: 'POST', url: '/api/agent/autonomy', body: { enabled: true } })).status, 200);
    const autonomy = (await overview(k)).autonomy;
    assert.is(autonomy.enabled, true);
    assert.equal(Object.keys(autonomy).sort(), ['enabled', 'lastEventAt', 'thinking']);
  } finally {
    await k.close();
  }
});

test.run();
