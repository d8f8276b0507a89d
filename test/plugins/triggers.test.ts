// The triggers resource over HTTP without an agent: CRUD and partial updates, validation, 404s, the
// limit of 100 enabled triggers, health (and its route beating /:id), the workflow endpoints, the
// trigger directory, the schedule surviving a restart, and unloading.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import triggers from '../../plugins/triggers/index.ts';
import { triggerDirectory } from '../../sdk/index.ts';
import { createTestKernel, type InjectRequest, type TestKernel } from '../../sdk/testing.ts';

const MIN = 60_000;
let kernel: TestKernel;

test.before(async () => { kernel = await createTestKernel({ plugins: [triggers] }); });
test.after(() => kernel.close());

const call = (request: InjectRequest) => kernel.inject(request);
const create = (body: Record<string, unknown>) => call({ method: 'POST', url: '/api/triggers', body });
const every = (minutes: number, extra: Record<string, unknown> = {}) =>
  ({ displayName: `Every ${minutes} min`, instructions: 'Check the inbox and summarise', triggerType: 'interval', intervalMs: minutes * MIN, ...extra });
const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();

test('create: 201 {trigger} with defaults, the next run computed and the schedule in words', async () => {
  const before = Date.now();
  const response = await create({ ...every(5), displayName: '  Inbox  ', cronExpression: 'ignored', timezone: 'ignored' });
  assert.is(response.status, 201, response.text);
  const { trigger } = response.body;
  assert.match(trigger.id, /^[0-9a-f-]{36}$/);
  assert.equal({ ...trigger, id: undefined, nextRunAtMs: undefined, createdAt: undefined, updatedAt: undefined }, {
    id: undefined, displayName: 'Inbox', instructions: 'Check the inbox and summarise', triggerType: 'interval', intervalMs: 5 * MIN,
    enabled: true, wakeMode: 'inject_now', runCount: 0, nextRunAtMs: undefined, createdAt: undefined, updatedAt: undefined, schedule: 'every 5m',
  });
  assert.ok(trigger.createdAt >= before && trigger.createdAt <= Date.now());
  assert.is(trigger.nextRunAtMs, trigger.createdAt + 5 * MIN);
  assert.equal((await call({ url: `/api/triggers/${trigger.id}` })).body, { trigger });
  const list = (await call({ url: '/api/triggers' })).body.triggers as { id: string }[];
  assert.ok(list.some((t) => t.id === trigger.id));
});

test('create: once and cron triggers; a disabled trigger has no next run', async () => {
  const at = inOneHour();
  const single = (await create({ displayName: 'Once', instructions: 'Ping', triggerType: 'once', scheduledAtIso: at, wakeMode: 'next_autonomy_cycle' })).body.trigger;
  assert.equal([single.scheduledAtIso, single.nextRunAtMs, single.wakeMode, single.schedule], [at, Date.parse(at), 'next_autonomy_cycle', `once at ${at}`]);
  const cron = (await create({ displayName: 'Weekdays', instructions: 'Plan the day', triggerType: 'cron', cronExpression: '0 9 * * 1-5', timezone: 'Europe/Oslo', enabled: false })).body.trigger;
  assert.equal([cron.enabled, cron.nextRunAtMs, cron.schedule], [false, undefined, 'cron 0 9 * * 1-5 (Europe/Oslo)']);
});

test('validation: 400 INVALID_REQUEST with a clear message', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ instructions: 'x', triggerType: 'interval', intervalMs: MIN }, /displayName/],
    [{ ...every(5), displayName: 'x'.repeat(201) }, /displayName/],
    [{ ...every(5), displayName: '   ' }, /displayName/],
    [{ ...every(5), instructions: 'x'.repeat(10_001) }, /instructions/],
    [{ ...every(5), triggerType: 'weekly' }, /triggerType/],
    [{ ...every(5), intervalMs: undefined }, /interval triggers need intervalMs/],
    [{ ...every(5), intervalMs: MIN - 1 }, /intervalMs/],
    [{ ...every(5), intervalMs: 31 * 24 * 60 * MIN + 1 }, /intervalMs/],
    [{ ...every(5), wakeMode: 'later' }, /wakeMode/],
    [{ ...every(5), maxRuns: 0 }, /maxRuns/],
    [{ ...every(5), triggerType: 'once' }, /once triggers need scheduledAtIso/],
    [{ ...every(5), triggerType: 'once', scheduledAtIso: 'next tuesday' }, /not an ISO 8601 date-time/],
    [{ ...every(5), triggerType: 'once', scheduledAtIso: '2000-01-01T00:00:00Z' }, /in the past/],
    [{ ...every(5), triggerType: 'cron', cronExpression: '0 9 * *' }, /exactly 5 fields/],
    [{ ...every(5), triggerType: 'cron', cronExpression: '0 25 * * *' }, /cronExpression "0 25 \* \* \*" is invalid/],
    [{ ...every(5), triggerType: 'cron', cronExpression: '0 9 * * *', timezone: 'Europe/Atlantis' }, /timezone "Europe\/Atlantis" is not an IANA time zone/],
  ];
  for (const [body, message] of cases) {
    const response = await create(body);
    assert.is(response.status, 400, JSON.stringify(body));
    assert.is(response.body.code, 'INVALID_REQUEST');
    assert.match(response.body.error, message, JSON.stringify(body));
  }
});

test('PUT is a partial update; a schedule change or enabling recomputes nextRunAtMs, disabling clears it', async () => {
  const { trigger } = (await create(every(10, { maxRuns: 5 }))).body;
  const renamed = (await call({ method: 'PUT', url: `/api/triggers/${trigger.id}`, body: { displayName: 'Renamed' } })).body.trigger;
  assert.equal([renamed.displayName, renamed.instructions, renamed.intervalMs, renamed.nextRunAtMs, renamed.maxRuns], ['Renamed', trigger.instructions, 10 * MIN, trigger.nextRunAtMs, 5]);
  assert.ok(renamed.updatedAt >= trigger.updatedAt);

  const before = Date.now();
  const faster = (await call({ method: 'PUT', url: `/api/triggers/${trigger.id}`, body: { intervalMs: 2 * MIN } })).body.trigger;
  assert.ok(faster.nextRunAtMs >= before + 2 * MIN && faster.nextRunAtMs <= Date.now() + 2 * MIN, 'from now, with the new interval');
  assert.is(faster.schedule, 'every 2m');

  const off = (await call({ method: 'PUT', url: `/api/triggers/${trigger.id}`, body: { enabled: false } })).body.trigger;
  assert.equal([off.enabled, off.nextRunAtMs], [false, undefined]);
  const on = (await call({ method: 'PUT', url: `/api/triggers/${trigger.id}`, body: { enabled: true } })).body.trigger;
  assert.ok(on.enabled && on.nextRunAtMs >= before + 2 * MIN);

  const cron = await call({ method: 'PUT', url: `/api/triggers/${trigger.id}`, body: { triggerType: 'cron', cronExpression: '30 6 * * *', timezone: 'UTC', maxRuns: null } });
  assert.is(cron.status, 200, cron.text);
  const changed = cron.body.trigger;
  assert.equal([changed.triggerType, changed.intervalMs, changed.maxRuns, changed.schedule], ['cron', undefined, undefined, 'cron 30 6 * * * (UTC)'], 'the old type\'s fields and maxRuns are gone');
  assert.is(new Date(changed.nextRunAtMs).toISOString().slice(11), '06:30:00.000Z');
  const noZone = (await call({ method: 'PUT', url: `/api/triggers/${trigger.id}`, body: { timezone: null } })).body.trigger;
  assert.equal([noZone.timezone, noZone.schedule], [undefined, 'cron 30 6 * * *']);

  const missing = await call({ method: 'PUT', url: `/api/triggers/${trigger.id}`, body: { triggerType: 'once' } });
  assert.equal([missing.status, missing.body.code], [400, 'INVALID_REQUEST']);
  assert.match(missing.body.error, /once triggers need scheduledAtIso/);
});

test('fields a client may not set are ignored in bodies', async () => {
  const forged = { id: 'forged', runCount: 42, lastStatus: 'success', createdAt: 1, nextRunAtMs: 5 };
  const { trigger } = (await create({ ...every(5), ...forged })).body;
  assert.equal([trigger.id === 'forged', trigger.runCount, trigger.lastStatus, trigger.createdAt > 1, trigger.nextRunAtMs > 5], [false, 0, undefined, true, true]);
  const updated = (await call({ method: 'PUT', url: `/api/triggers/${trigger.id}`, body: { ...forged, displayName: 'Still mine' } })).body.trigger;
  assert.equal(updated, { ...trigger, displayName: 'Still mine', updatedAt: updated.updatedAt });
  await call({ method: 'DELETE', url: `/api/triggers/${trigger.id}` });
});

test('unknown ids: 404 TRIGGER_NOT_FOUND on every per-trigger route; DELETE answers {ok: true} then 404', async () => {
  const unknown = '00000000-0000-4000-8000-000000000000';
  for (const [method, url, body] of [['GET', ''], ['PUT', '', { displayName: 'x' }], ['DELETE', ''], ['POST', '/execute'], ['GET', '/runs']] as const) {
    const response = await call({ method, url: `/api/triggers/${unknown}${url}`, body });
    assert.equal([response.status, response.body.code], [404, 'TRIGGER_NOT_FOUND'], `${method} ${url}`);
  }
  const { trigger } = (await create(every(5))).body;
  assert.equal((await call({ method: 'DELETE', url: `/api/triggers/${trigger.id}` })).body, { ok: true });
  assert.is((await call({ url: `/api/triggers/${trigger.id}` })).status, 404);
});

test('at most 100 enabled triggers: creating or enabling the 101st is 429 TOO_MANY_TRIGGERS', async () => {
  const enabled = ((await call({ url: '/api/triggers' })).body.triggers as { enabled: boolean }[]).filter((t) => t.enabled).length;
  const ids: string[] = [];
  for (let i = enabled; i < 100; i++) {
    const response = await create(every(60, { displayName: `Bulk ${i}` }));
    assert.is(response.status, 201, response.text);
    ids.push(response.body.trigger.id);
  }
  const refused = await create(every(60));
  assert.equal([refused.status, refused.body.code], [429, 'TOO_MANY_TRIGGERS']);
  const parked = await create(every(60, { enabled: false }));
  assert.is(parked.status, 201, 'disabled triggers do not count');
  const enable = () => call({ method: 'PUT', url: `/api/triggers/${parked.body.trigger.id}`, body: { enabled: true } });
  assert.equal([(await enable()).status, (await enable()).body.code], [429, 'TOO_MANY_TRIGGERS']);
  assert.equal((await call({ url: '/api/triggers/health' })).body.activeTriggers, 100);
  await call({ method: 'PUT', url: `/api/triggers/${ids[0]}`, body: { enabled: false } });
  assert.is((await enable()).status, 200);
  for (const id of [...ids, parked.body.trigger.id]) await call({ method: 'DELETE', url: `/api/triggers/${id}` });
});

test('health: a snapshot of the scheduler, served by /health even though /:id is registered first', async () => {
  const soon = (await create(every(1, { displayName: 'Soonest' }))).body.trigger;
  const health = await call({ url: '/api/triggers/health' });
  assert.is(health.status, 200, health.text);
  const body = health.body;
  assert.equal(Object.keys(body).sort(), ['activeTriggers', 'catchUpWindowMs', 'failuresLast24h', 'lastTickAt', 'maxActiveTriggers', 'nextDue', 'runningTriggers', 'schedulerRunning', 'totalRuns', 'totalTriggers']);
  assert.is(body.schedulerRunning, true);
  assert.is(new Date(body.lastTickAt).toISOString(), body.lastTickAt, 'the startup tick happened');
  assert.equal(body.nextDue, { triggerId: soon.id, displayName: 'Soonest', nextRunAtMs: soon.nextRunAtMs, nextRunAtIso: new Date(soon.nextRunAtMs).toISOString() });
  assert.equal([body.maxActiveTriggers, body.catchUpWindowMs, body.runningTriggers], [100, 86_400_000, 0]);
  assert.ok(body.totalTriggers >= body.activeTriggers && body.activeTriggers >= 1);
  await call({ method: 'DELETE', url: `/api/triggers/${soon.id}` });
});

test('execute without an agent runtime: the run is recorded as an error, 200 {run, trigger}', async () => {
  const { trigger } = (await create(every(5, { enabled: false }))).body;
  const response = await call({ method: 'POST', url: `/api/triggers/${trigger.id}/execute` });
  assert.is(response.status, 200, response.text);
  const { run, trigger: after } = response.body;
  assert.equal([run.status, run.error, run.source, run.triggerId], ['error', 'no agent runtime loaded', 'manual', trigger.id]);
  assert.ok(run.finishedAt >= run.startedAt && run.latencyMs === run.finishedAt - run.startedAt);
  assert.equal([after.runCount, after.lastStatus, after.lastError, after.lastRunAtIso], [1, 'error', 'no agent runtime loaded', new Date(run.startedAt).toISOString()]);
  assert.equal((await call({ url: `/api/triggers/${trigger.id}/runs` })).body, { runs: [run] });
  const health = (await call({ url: '/api/triggers/health' })).body;
  assert.ok(health.failuresLast24h >= 1 && health.totalRuns >= 1);
});

test('workflow endpoints: an empty list, mode triggers-only, degraded without an agent, the platform', async () => {
  assert.equal((await call({ url: '/api/workflow/workflows' })).body, { workflows: [] });
  assert.equal((await call({ url: '/api/workflow/status' })).body, {
    mode: 'triggers-only', health: 'degraded', platform: `${process.platform}-${process.arch}`, reasons: ['no agent runtime loaded'],
  });
});

test('trigger directory: summaries with the schedule in words', async () => {
  const at = inOneHour();
  const { trigger } = (await create({ displayName: 'Directory', instructions: 'x', triggerType: 'once', scheduledAtIso: at })).body;
  const summaries = await kernel.kernel.resolve(triggerDirectory)!.summaries();
  assert.equal(summaries.find((s) => s.id === trigger.id), { id: trigger.id, displayName: 'Directory', enabled: true, schedule: `once at ${at}` });
});

test('the schedule survives a restart: nextRunAtMs is persisted, not recomputed', async () => {
  const { trigger } = (await create(every(7, { displayName: 'Persistent' }))).body;
  kernel = await kernel.restart();
  const reloaded = (await call({ url: `/api/triggers/${trigger.id}` })).body.trigger;
  assert.equal(reloaded, trigger);
});

test('unloading the plugin stops the scheduler and releases everything it owned', async () => {
  await create(every(1));
  await create(every(2));
  assert.is(kernel.kernel.owned('triggers').timers, 1, 'one kernel-owned timer for all triggers, re-armed on change');
  await kernel.kernel.unload('triggers');
  assert.equal(kernel.kernel.owned('triggers'), { routes: 0, listeners: 0, timers: 0, wsHandlers: 0, services: 0, disposables: 0 });
  assert.is((await call({ url: '/api/triggers' })).status, 404);
  assert.is(kernel.kernel.resolve(triggerDirectory), undefined);
});

test.run();
