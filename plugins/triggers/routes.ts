import { reply, Type, type PluginContext } from '../../sdk/index.ts';
import type { Scheduler } from './scheduler.ts';
import { CreateTrigger, MISSED_RUN_RULE, Trigger, TriggerRun, UpdateTrigger } from './schemas.ts';
import { MAX_ENABLED, type TriggerService } from './service.ts';
import { RUNS_KEPT } from './store.ts';

const TAGS = ['triggers'];
const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const One = Type.Object({ trigger: Trigger });
const NOT_FOUND = '404 TRIGGER_NOT_FOUND for an unknown id.';
const LIMIT = `429 TOO_MANY_TRIGGERS when ${MAX_ENABLED} triggers are enabled already.`;
const SCHEDULE_RULES = 'interval needs intervalMs (60 000 ms to 31 days; first run one interval after now); once needs scheduledAtIso '
  + '(ISO 8601 with Z or ±hh:mm, not in the past; the trigger disables itself after its scheduled run); cron needs a 5-field cronExpression '
  + 'and takes an optional IANA timezone (default: the server\'s local zone). Fields of the other types are ignored and not stored. '
  + 'maxRuns: the trigger disables itself once runCount reaches it. Invalid schedules answer 400 INVALID_REQUEST with the reason.';

const Health = Type.Object({
  schedulerRunning: Type.Boolean(),
  lastTickAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the scheduler last checked for due triggers' }),
  activeTriggers: Type.Integer({ description: 'Enabled triggers' }),
  totalTriggers: Type.Integer(),
  maxActiveTriggers: Type.Integer(),
  runningTriggers: Type.Integer({ description: 'Executions in progress' }),
  nextDue: Type.Union([
    Type.Object({ triggerId: Type.String(), displayName: Type.String(), nextRunAtMs: Type.Number(), nextRunAtIso: Type.String({ format: 'date-time' }) }),
    Type.Null(),
  ]),
  totalRuns: Type.Integer({ description: 'Sum of runCount over existing triggers' }),
  failuresLast24h: Type.Integer({ description: 'Runs with status error started in the last 24 h (among the kept history)' }),
  catchUpWindowMs: Type.Integer(),
});

/** The trigger resource: CRUD, manual execution, run history and the health snapshot. */
export function registerTriggerRoutes(ctx: PluginContext<any>, triggers: TriggerService, scheduler: Scheduler, catchUpWindowMs: number): void {
  ctx.route({
    method: 'GET', path: '/api/triggers', tags: TAGS, summary: 'Every trigger, oldest first',
    schema: { response: { 200: Type.Object({ triggers: Type.Array(Trigger) }) } },
    handler: async () => ({ triggers: await triggers.list() }),
  });

  ctx.route({
    method: 'POST', path: '/api/triggers', tags: TAGS, summary: 'Create a trigger; it fires on schedule (enabled by default)',
    description: `201 {trigger}. ${SCHEDULE_RULES} wakeMode defaults to inject_now. ${LIMIT} ${MISSED_RUN_RULE}`,
    schema: { body: CreateTrigger, response: { 201: One } },
    handler: async ({ body }) => reply(201, { trigger: await triggers.create(body) }),
  });

  ctx.route({
    method: 'GET', path: '/api/triggers/:id', tags: TAGS, summary: 'One trigger', description: NOT_FOUND,
    schema: { params: Id, response: { 200: One } },
    handler: async ({ params }) => ({ trigger: await triggers.get(params.id) }),
  });

  // Registered after /:id on purpose: the router prefers the static segment (fewer parameters win) whatever the order.
  ctx.route({
    method: 'GET', path: '/api/triggers/health', tags: TAGS, summary: 'Scheduler health snapshot',
    description: 'Whether the scheduler runs and when it last ticked, active (enabled) and total triggers, executions in progress, the next due trigger, total runs and failures in the last 24 h.',
    schema: { response: { 200: Health } },
    async handler() {
      const { schedulerRunning, lastTickAt } = scheduler.status();
      return {
        schedulerRunning, lastTickAt: lastTickAt === null ? null : new Date(lastTickAt).toISOString(),
        ...await triggers.stats(), maxActiveTriggers: MAX_ENABLED, catchUpWindowMs,
      };
    },
  });

  ctx.route({
    method: 'PUT', path: '/api/triggers/:id', tags: TAGS, summary: 'Update any subset of a trigger\'s fields',
    description: `{trigger}. Partial: omitted fields keep their value; timezone or maxRuns null removes it. Enabling, or changing the type or any schedule field, recomputes nextRunAtMs from now; disabling clears it. ${SCHEDULE_RULES} Enabling a trigger whose runCount already reached maxRuns is 400. ${LIMIT} ${NOT_FOUND}`,
    schema: { params: Id, body: UpdateTrigger, response: { 200: One } },
    handler: async ({ params, body }) => ({ trigger: await triggers.update(params.id, body) }),
  });

  ctx.route({
    method: 'DELETE', path: '/api/triggers/:id', tags: TAGS, summary: 'Delete a trigger and its run history', description: NOT_FOUND,
    schema: { params: Id, response: { 200: Type.Object({ ok: Type.Literal(true) }) } },
    async handler({ params }) {
      await triggers.remove(params.id);
      return { ok: true };
    },
  });

  ctx.route({
    method: 'POST', path: '/api/triggers/:id/execute', tags: TAGS, summary: 'Run a trigger now (source manual) and wait for the outcome',
    description: `{run, trigger}: the instructions go to the agent runtime (agentRuntime.instruct with the trigger's wakeMode); the run's status is success, or error with the reason (no agent runtime loaded, agent not running, model failure) — still 200. Works on disabled triggers; does not move the schedule; counts towards maxRuns. 409 TRIGGER_RUNNING while the trigger runs. ${NOT_FOUND} Every run is also broadcast on /ws as {type: "trigger-run", triggerId, run}.`,
    schema: { params: Id, response: { 200: Type.Object({ run: TriggerRun, trigger: Trigger }) } },
    handler: ({ params }) => triggers.execute(params.id),
  });

  ctx.route({
    method: 'GET', path: '/api/triggers/:id/runs', tags: TAGS, summary: 'Run history, newest first',
    description: `{runs}: the last ${RUNS_KEPT} runs of the trigger (scheduled, manual and skipped). ${NOT_FOUND}`,
    schema: { params: Id, response: { 200: Type.Object({ runs: Type.Array(TriggerRun) }) } },
    handler: async ({ params }) => ({ runs: await triggers.runs(params.id) }),
  });
}
