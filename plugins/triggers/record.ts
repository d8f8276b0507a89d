import { describeSchedule, normalizeSchedule } from './schedule.ts';
import { UpdateTrigger, type StoredTrigger, type Trigger, type TriggerRun } from './schemas.ts';

// Pure functions on trigger records, shared by the service's create, update and run bookkeeping.

/** ISO 8601 (UTC) of a Unix ms time. */
export const iso = (ms: number) => new Date(ms).toISOString();

/** The record as clients see it: the stored fields plus the schedule in words. */
export const present = (trigger: StoredTrigger): Trigger => ({ ...trigger, schedule: describeSchedule(trigger) });

/** A record from its fields: names trimmed, only the schedule fields of its type, normalized (throws 400). */
export function compose(fields: StoredTrigger, now: number): StoredTrigger {
  return {
    id: fields.id, displayName: fields.displayName.trim(), instructions: fields.instructions.trim(), ...normalizeSchedule(fields),
    enabled: fields.enabled, wakeMode: fields.wakeMode, maxRuns: fields.maxRuns, runCount: fields.runCount, nextRunAtMs: fields.nextRunAtMs,
    lastRunAtIso: fields.lastRunAtIso, lastStatus: fields.lastStatus, lastError: fields.lastError, createdAt: fields.createdAt, updatedAt: now,
  };
}

const EDITABLE = Object.keys(UpdateTrigger.properties) as (keyof UpdateTrigger)[];

/** The fields a client may set, present in the input (`null` → removed); anything else in a body is ignored. */
export function editable(input: UpdateTrigger): Partial<StoredTrigger> {
  return Object.fromEntries(EDITABLE.filter((key) => input[key] !== undefined).map((key) => [key, input[key] ?? undefined]));
}

/** Equal for two records with the same schedule. */
export const scheduleKey = (t: StoredTrigger) => JSON.stringify([t.triggerType, t.intervalMs, t.scheduledAtIso, t.cronExpression, t.timezone]);

/** A run's effect on its trigger: counts and last status; reaching maxRuns disables it. Skipped runs do not count. */
export function afterRun(trigger: StoredTrigger, run: TriggerRun, now: number): StoredTrigger {
  if (run.status === 'skipped') return { ...trigger, lastStatus: 'skipped', lastError: undefined, updatedAt: now };
  const runCount = trigger.runCount + 1;
  const exhausted = trigger.maxRuns !== undefined && runCount >= trigger.maxRuns;
  return {
    ...trigger, runCount, lastRunAtIso: iso(run.startedAt), lastStatus: run.status, lastError: run.error, updatedAt: now,
    ...(exhausted && { enabled: false, nextRunAtMs: undefined }),
  };
}
