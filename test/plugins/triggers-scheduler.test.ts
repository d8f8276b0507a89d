// The trigger scheduler and service on a fake clock: one timer for the earliest run, firing on time,
// coalesced catch-up after downtime, skipping beyond the catch-up window, once/maxRuns disabling, and
// never two runs of one trigger at once. Real sql.js storage (through a fixture plugin); the agent is a
// recorded executor so that time and outcomes are under the test's control.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createScheduler, MAX_TIMER_MS, type Clock, type Scheduler } from '../../plugins/triggers/scheduler.ts';
import type { CreateTrigger, StoredTrigger, TriggerRun } from '../../plugins/triggers/schemas.ts';
import { createTriggers, type TriggerService } from '../../plugins/triggers/service.ts';
import { createTriggerStore, migrations, type TriggerStore } from '../../plugins/triggers/store.ts';
import { definePlugin, HttpError, type InstructionOutcome, type SqlDatabase } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.parse('2030-01-07T08:00:00Z');

interface FakeClock extends Clock { advance(ms: number): void; armed(): number[] }

/** Time moves only when the test says so; due timers fire during `advance`. */
function fakeClock(start: number): FakeClock {
  let now = start;
  let ids = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimer(fn, ms) { timers.set(++ids, { at: now + ms, fn }); return ids; },
    clearTimer(id) { timers.delete(id as number); },
    armed: () => [...timers.values()].map((t) => t.at),
    advance(ms) {
      now += ms;
      for (const [id, timer] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
        if (timer.at > now) continue;
        timers.delete(id);
        timer.fn();
      }
    },
  };
}

interface Rig {
  clock: FakeClock;
  triggers: TriggerService;
  scheduler: Scheduler;
  calls: { id: string; at: number }[];
  broadcasts: TriggerRun[];
  /** Makes the executor wait for `release()`; `fail` makes it throw; `latencyMs` advances the clock while it runs. */
  agent: { gate?: Promise<void>; fail?: string; latencyMs?: number };
  /** Waits until ticks, re-arms and executions are all done (firing timers that came due meanwhile). */
  settle(): Promise<void>;
  /** Advances the fake clock and settles. */
  advance(ms: number): Promise<void>;
  /** A new scheduler and service on the same store (a server restart), started. */
  restart(): Promise<void>;
  stop(): void;
}

let kernel: TestKernel;
let store: TriggerStore;

test.before.each(async () => {
  let db!: SqlDatabase;
  kernel = await createTestKernel({ plugins: [definePlugin({ id: 'triggers-store-fixture', version: '0.0.1', async setup(ctx) { db = await ctx.storage.sql({ migrations }); } })] });
  store = createTriggerStore(db);
});
test.after.each(() => kernel.close());

async function rig(options: { catchUpWindowMs?: number; start?: boolean } = {}): Promise<Rig> {
  const clock = fakeClock(T0);
  const calls: Rig['calls'] = [];
  const broadcasts: TriggerRun[] = [];
  const agent: Rig['agent'] = {};
  const build = () => {
    const triggers = createTriggers({
      store, now: clock.now, catchUpWindowMs: options.catchUpWindowMs ?? 24 * HOUR, log: { warn: (message) => { throw new Error(message); } },
      async execute(trigger: StoredTrigger): Promise<InstructionOutcome> {
        calls.push({ id: trigger.id, at: clock.now() });
        if (agent.gate) await agent.gate;
        if (agent.latencyMs) clock.advance(agent.latencyMs);
        if (agent.fail) throw new Error(agent.fail);
        return { mode: 'ran', text: 'done' };
      },
      onRun: (run) => broadcasts.push(run),
      onChange: () => void scheduler.rearm(),
    });
    const scheduler = createScheduler({ clock, fireDue: triggers.fireDue, earliest: triggers.earliest, onError: (error) => { throw error; } });
    return { triggers, scheduler };
  };
  let parts = build();
  const r: Rig = {
    clock, calls, broadcasts, agent,
    get triggers() { return parts.triggers; },
    get scheduler() { return parts.scheduler; },
    async settle() {
      for (let round = 0; round < 4; round++) {
        clock.advance(0); // a timer armed for a time already reached fires, as a real one would
        await parts.scheduler.settled();
        await parts.triggers.idle();
      }
    },
    async advance(ms) {
      await r.settle();
      clock.advance(ms);
      await r.settle();
    },
    async restart() {
      parts = build();
      await parts.scheduler.start();
      await r.settle();
    },
    stop: () => parts.scheduler.stop(),
  };
  if (options.start !== false) await parts.scheduler.start();
  return r;
}

const interval = (intervalMs: number, extra: Partial<CreateTrigger> = {}): CreateTrigger =>
  ({ displayName: 'Every so often', instructions: 'Check the inbox', triggerType: 'interval', intervalMs, enabled: true, wakeMode: 'inject_now', ...extra });
const once = (scheduledAtMs: number): CreateTrigger =>
  ({ displayName: 'Once', instructions: 'Say hello', triggerType: 'once', scheduledAtIso: new Date(scheduledAtMs).toISOString(), enabled: true, wakeMode: 'inject_now' });

test('one timer, armed for the earliest next run and re-armed after a change', async () => {
  const r = await rig();
  assert.equal(r.clock.armed(), [], 'nothing to wait for');
  const slow = await r.triggers.create(interval(HOUR));
  await r.settle();
  assert.equal(r.clock.armed(), [T0 + HOUR]);
  const fast = await r.triggers.create(interval(2 * MIN));
  await r.settle();
  assert.equal(r.clock.armed(), [T0 + 2 * MIN], 'still one timer, now for the earlier trigger');
  await r.triggers.update(fast.id, { enabled: false });
  await r.settle();
  assert.equal(r.clock.armed(), [T0 + HOUR]);
  await r.triggers.remove(slow.id);
  await r.settle();
  assert.equal(r.clock.armed(), []);
});

test('a run 40 days ahead arms the longest timer Node allows, then re-arms on wake-up without firing', async () => {
  const r = await rig();
  const far = T0 + 40 * 24 * HOUR;
  await r.triggers.create(once(far));
  await r.settle();
  assert.equal(r.clock.armed(), [T0 + MAX_TIMER_MS]);
  await r.advance(MAX_TIMER_MS);
  assert.is(r.calls.length, 0);
  assert.equal(r.clock.armed(), [far]);
  await r.advance(far - r.clock.now());
  assert.is(r.calls.length, 1);
});

test('fires on time, records the run, and schedules the next from the due time (no drift)', async () => {
  const r = await rig();
  r.agent.latencyMs = 5000;
  const trigger = await r.triggers.create(interval(MIN));
  await r.settle();
  await r.advance(MIN - 1);
  assert.is(r.calls.length, 0, 'not yet');
  await r.advance(1);
  assert.equal(r.calls, [{ id: trigger.id, at: T0 + MIN }]);
  const [run] = await r.triggers.runs(trigger.id);
  assert.equal({ ...run, id: undefined }, {
    id: undefined, triggerId: trigger.id, startedAt: T0 + MIN, finishedAt: T0 + MIN + 5000, latencyMs: 5000, status: 'success', mode: 'ran', source: 'scheduler',
  });
  assert.equal(r.broadcasts, [run]);
  const after = await r.triggers.get(trigger.id);
  assert.equal([after.runCount, after.lastStatus, after.lastRunAtIso, after.nextRunAtMs], [1, 'success', new Date(T0 + MIN).toISOString(), T0 + 2 * MIN]);
  await r.advance(MIN - 5000);
  assert.is(r.calls.length, 2);
  assert.is(r.calls[1]!.at, T0 + 2 * MIN);
});

test('a cron trigger fires at its next matching minute', async () => {
  const r = await rig();
  const trigger = await r.triggers.create({ ...interval(MIN), triggerType: 'cron', cronExpression: '*/15 * * * *', timezone: 'UTC' });
  assert.is(trigger.nextRunAtMs, T0 + 15 * MIN);
  await r.advance(15 * MIN);
  assert.equal(r.calls.map((c) => c.at), [T0 + 15 * MIN]);
  assert.is((await r.triggers.get(trigger.id)).nextRunAtMs, T0 + 30 * MIN);
});

test('catch-up: runs missed while the server was down fire once at startup, then the phase continues', async () => {
  const r = await rig();
  const trigger = await r.triggers.create(interval(10 * MIN));
  await r.settle();
  r.stop();
  await r.advance(65 * MIN); // six occurrences pass while "down"
  assert.is(r.calls.length, 0);
  await r.restart();
  assert.equal(r.calls, [{ id: trigger.id, at: T0 + 65 * MIN }], 'coalesced into one run');
  const after = await r.triggers.get(trigger.id);
  assert.equal([after.runCount, after.nextRunAtMs], [1, T0 + 70 * MIN]);
  assert.equal((await r.triggers.runs(trigger.id)).map((run) => [run.status, run.source]), [['success', 'scheduler']]);
});

test('catch-up: a run later than the catch-up window is skipped (recorded) and the next is scheduled after now', async () => {
  const r = await rig({ catchUpWindowMs: HOUR });
  const trigger = await r.triggers.create(interval(10 * MIN));
  const single = await r.triggers.create(once(T0 + 30 * MIN));
  await r.settle();
  r.stop();
  await r.advance(3 * HOUR + 5 * MIN);
  await r.restart();
  assert.is(r.calls.length, 0, 'nothing ran');
  const [skipped] = await r.triggers.runs(trigger.id);
  assert.is(skipped!.status, 'skipped');
  assert.is(skipped!.source, 'scheduler');
  assert.match(skipped!.error!, /due at 2030-01-07T08:10:00.000Z, more than 1h ago \(the catch-up window\)/);
  const after = await r.triggers.get(trigger.id);
  assert.equal([after.runCount, after.lastStatus, after.enabled, after.nextRunAtMs], [0, 'skipped', true, T0 + 3 * HOUR + 10 * MIN]);
  const gone = await r.triggers.get(single.id);
  assert.equal([gone.enabled, gone.nextRunAtMs, gone.lastStatus, gone.runCount], [false, undefined, 'skipped', 0], 'a missed once trigger is consumed');
  await r.advance(5 * MIN);
  assert.is(r.calls.length, 1, 'the schedule goes on');
});

test('a once trigger runs at its time and disables itself', async () => {
  const r = await rig();
  const trigger = await r.triggers.create(once(T0 + 5 * MIN));
  await r.advance(5 * MIN);
  assert.equal(r.calls.map((c) => c.at), [T0 + 5 * MIN]);
  const after = await r.triggers.get(trigger.id);
  assert.equal([after.enabled, after.nextRunAtMs, after.runCount, after.lastStatus], [false, undefined, 1, 'success']);
  assert.equal(r.clock.armed(), []);
  await r.advance(24 * HOUR);
  assert.is(r.calls.length, 1);
});

test('maxRuns: the trigger disables itself once runCount reaches it (manual runs count)', async () => {
  const r = await rig();
  const trigger = await r.triggers.create(interval(MIN, { maxRuns: 3 }));
  await r.triggers.execute(trigger.id);
  await r.advance(MIN);
  assert.is((await r.triggers.get(trigger.id)).enabled, true);
  await r.advance(MIN);
  const after = await r.triggers.get(trigger.id);
  assert.equal([after.runCount, after.enabled, after.nextRunAtMs], [3, false, undefined]);
  await r.advance(10 * MIN);
  assert.is(r.calls.length, 3);
  await r.triggers.update(trigger.id, { enabled: true }).then(() => assert.unreachable('enabled past maxRuns'), (error: HttpError) => {
    assert.is(error.status, 400);
    assert.match(error.message, /maxRuns 3 is already reached/);
  });
  assert.is((await r.triggers.update(trigger.id, { enabled: true, maxRuns: null })).enabled, true, 'null removes the limit');
});

test('a trigger never runs twice at once: a due tick while it runs is skipped, a manual run is 409', async () => {
  const r = await rig();
  let release!: () => void;
  r.agent.gate = new Promise((resolve) => (release = resolve));
  const trigger = await r.triggers.create(interval(MIN));
  await r.scheduler.settled();
  r.clock.advance(MIN); // starts the first run, which waits on the gate
  await r.scheduler.settled();
  r.clock.advance(MIN);
  await r.scheduler.settled();
  assert.is(r.calls.length, 1);
  await r.triggers.execute(trigger.id).then(() => assert.unreachable('second concurrent run'), (error: HttpError) => {
    assert.equal([error.status, error.code], [409, 'TRIGGER_RUNNING']);
  });
  assert.equal((await r.triggers.stats()).runningTriggers, 1);
  release();
  await r.settle();
  const runs = await r.triggers.runs(trigger.id);
  assert.equal(runs.map((run) => run.status), ['success', 'skipped'], 'newest first');
  assert.match(runs[1]!.error!, /previous run was still in progress/);
  const after = await r.triggers.get(trigger.id);
  assert.equal([after.runCount, after.nextRunAtMs], [1, T0 + 3 * MIN]);
});

test('a failing run records the error; the next success clears lastError', async () => {
  const r = await rig();
  const trigger = await r.triggers.create(interval(MIN));
  r.agent.fail = 'Agent is not running';
  const { run, trigger: failed } = await r.triggers.execute(trigger.id);
  assert.equal([run.status, run.error, run.source, run.mode], ['error', 'Agent is not running', 'manual', undefined]);
  assert.equal([failed.lastStatus, failed.lastError, failed.runCount], ['error', 'Agent is not running', 1]);
  assert.is(failed.nextRunAtMs, T0 + MIN, 'a manual run does not move the schedule');
  assert.is((await r.triggers.stats()).failuresLast24h, 1);
  r.agent.fail = undefined;
  await r.advance(MIN);
  const after = await r.triggers.get(trigger.id);
  assert.equal([after.lastStatus, after.lastError, after.runCount], ['success', undefined, 2]);
});

test('the run history keeps the newest 100 runs per trigger', async () => {
  const r = await rig();
  const trigger = await r.triggers.create(interval(MIN, { enabled: false }));
  for (let i = 0; i < 103; i++) await r.triggers.execute(trigger.id);
  const runs = await r.triggers.runs(trigger.id);
  assert.is(runs.length, 100);
  assert.is((await r.triggers.get(trigger.id)).runCount, 103);
  assert.is(runs[0]!.id, r.broadcasts.at(-1)!.id, 'newest first');
  assert.is(runs[99]!.id, r.broadcasts[3]!.id);
});

test.run();
