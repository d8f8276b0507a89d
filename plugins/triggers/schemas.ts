import { Type, type Static } from '../../sdk/index.ts';

export const MIN_INTERVAL_MS = 60_000;
export const MAX_INTERVAL_MS = 31 * 24 * 60 * 60_000;

export const TriggerType = Type.Enum(['interval', 'once', 'cron']);
const WAKE_MODES = ['inject_now', 'next_autonomy_cycle'] as const;
const WAKE_MODE_DOC = 'inject_now: the agent runs an autonomy cycle on the instructions at once; next_autonomy_cycle: they wait for its next cycle';
export const WakeMode = Type.Enum([...WAKE_MODES], { description: WAKE_MODE_DOC });
export const RunStatus = Type.Enum(['success', 'error', 'skipped']);
export const RunSource = Type.Enum(['scheduler', 'manual']);

const DisplayName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Instructions = Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S', description: 'Handed to the agent when the trigger fires' });
const IntervalMs = Type.Integer({ minimum: MIN_INTERVAL_MS, maximum: MAX_INTERVAL_MS, description: 'interval triggers: 60 000 ms to 31 days' });
const ScheduledAtIso = Type.String({ maxLength: 64, description: 'once triggers: an ISO 8601 date-time with Z or ±hh:mm, not in the past' });
const CronExpression = Type.String({ maxLength: 200, description: 'cron triggers: 5 fields (minute hour day-of-month month day-of-week)' });
const Timezone = Type.String({ maxLength: 100, description: 'cron triggers: an IANA time zone (default: the server\'s local zone)' });
const MaxRuns = Type.Integer({ minimum: 1, description: 'Disable the trigger once it has run this many times (manual runs count)' });

export const Trigger = Type.Object({
  id: Type.String({ format: 'uuid' }),
  displayName: Type.String(),
  instructions: Type.String(),
  triggerType: TriggerType,
  enabled: Type.Boolean(),
  wakeMode: WakeMode,
  intervalMs: Type.Optional(Type.Integer()),
  scheduledAtIso: Type.Optional(Type.String({ format: 'date-time' })),
  cronExpression: Type.Optional(Type.String()),
  timezone: Type.Optional(Type.String()),
  maxRuns: Type.Optional(Type.Integer()),
  runCount: Type.Integer({ description: 'Runs that executed (success or error); skipped runs are not counted' }),
  nextRunAtMs: Type.Optional(Type.Number({ description: 'Unix ms of the next scheduled run; absent while disabled' })),
  lastRunAtIso: Type.Optional(Type.String({ format: 'date-time' })),
  lastStatus: Type.Optional(RunStatus),
  lastError: Type.Optional(Type.String({ description: 'Present while the last run failed' })),
  createdAt: Type.Number({ description: 'Unix ms' }),
  updatedAt: Type.Number({ description: 'Unix ms of the last change to the record (edits and run bookkeeping)' }),
  schedule: Type.String({ description: 'The schedule in words, as the workbench overview shows it: "every 5m", "once at <ISO>", "cron 0 9 * * 1-5 (Europe/Oslo)"' }),
});
export type Trigger = Static<typeof Trigger>;
/** A trigger as stored: everything but the derived `schedule` text. */
export type StoredTrigger = Omit<Trigger, 'schedule'>;

export const TriggerRun = Type.Object({
  id: Type.String({ format: 'uuid' }),
  triggerId: Type.String(),
  startedAt: Type.Number({ description: 'Unix ms' }),
  finishedAt: Type.Number({ description: 'Unix ms' }),
  status: RunStatus,
  error: Type.Optional(Type.String({ description: 'Why the run failed or was skipped' })),
  latencyMs: Type.Number(),
  source: RunSource,
  mode: Type.Optional(Type.Enum(['ran', 'queued'], { description: 'success only: the agent ran a cycle now, or queued the instructions for its next cycle' })),
});
export type TriggerRun = Static<typeof TriggerRun>;

export const CreateTrigger = Type.Object({
  displayName: DisplayName,
  instructions: Instructions,
  triggerType: TriggerType,
  enabled: Type.Boolean({ default: true }),
  wakeMode: Type.Enum([...WAKE_MODES], { default: 'inject_now', description: WAKE_MODE_DOC }),
  intervalMs: Type.Optional(IntervalMs),
  scheduledAtIso: Type.Optional(ScheduledAtIso),
  cronExpression: Type.Optional(CronExpression),
  timezone: Type.Optional(Timezone),
  maxRuns: Type.Optional(MaxRuns),
});
export type CreateTrigger = Static<typeof CreateTrigger>;

export const UpdateTrigger = Type.Object({
  displayName: Type.Optional(DisplayName),
  instructions: Type.Optional(Instructions),
  triggerType: Type.Optional(TriggerType),
  enabled: Type.Optional(Type.Boolean()),
  wakeMode: Type.Optional(WakeMode),
  intervalMs: Type.Optional(IntervalMs),
  scheduledAtIso: Type.Optional(ScheduledAtIso),
  cronExpression: Type.Optional(CronExpression),
  timezone: Type.Optional(Type.Union([Timezone, Type.Null()], { description: 'null removes it' })),
  maxRuns: Type.Optional(Type.Union([MaxRuns, Type.Null()], { description: 'null removes the limit' })),
});
export type UpdateTrigger = Static<typeof UpdateTrigger>;

/** The missed-run rule, stated once for the config and the API docs. */
export const MISSED_RUN_RULE = 'Missed runs: a trigger whose next run passed while the server was down (or the machine slept) fires once when the '
  + 'scheduler next ticks (at startup), source scheduler; missed occurrences are coalesced, never replayed one by one. A run found '
  + 'more than catchUpWindowMs late (default 24 h) is skipped instead (recorded as a run with status skipped) and the next one '
  + 'is scheduled after now. Interval runs keep their phase (previous due time + interval, never in the past).';
