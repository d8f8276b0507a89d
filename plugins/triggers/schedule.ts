import { Cron } from 'croner';
import { errors } from '../../sdk/index.ts';
import { MAX_INTERVAL_MS, MIN_INTERVAL_MS } from './schemas.ts';

/** The schedule part of a trigger: its type and the fields that type uses. */
export interface Schedule {
  triggerType: 'interval' | 'once' | 'cron';
  intervalMs?: number;
  scheduledAtIso?: string;
  cronExpression?: string;
  timezone?: string;
}

const invalid = (message: string) => errors.badRequest(message);

/**
 * Checks the fields the trigger type needs and returns them normalized (ISO time in UTC, cron fields
 * single-spaced, canonical zone name). Fields of the other types are dropped. Throws 400 INVALID_REQUEST.
 */
export function normalizeSchedule(input: Schedule): Schedule {
  const { triggerType } = input;
  if (triggerType === 'interval') {
    const { intervalMs } = input;
    if (intervalMs === undefined || !Number.isInteger(intervalMs) || intervalMs < MIN_INTERVAL_MS || intervalMs > MAX_INTERVAL_MS) {
      throw invalid(`interval triggers need intervalMs: an integer from ${MIN_INTERVAL_MS} (1 minute) to ${MAX_INTERVAL_MS} (31 days)`);
    }
    return { triggerType, intervalMs };
  }
  if (triggerType === 'once') {
    if (!input.scheduledAtIso) throw invalid('once triggers need scheduledAtIso (an ISO 8601 date-time such as 2030-06-01T09:00:00Z)');
    const at = parseIsoInstant(input.scheduledAtIso);
    if (at === undefined) throw invalid(`scheduledAtIso "${input.scheduledAtIso}" is not an ISO 8601 date-time with Z or a ±hh:mm offset (e.g. 2030-06-01T09:00:00+02:00)`);
    return { triggerType, scheduledAtIso: new Date(at).toISOString() };
  }
  if (!input.cronExpression) throw invalid('cron triggers need cronExpression (5 fields: minute hour day-of-month month day-of-week)');
  const cronExpression = input.cronExpression.trim().split(/\s+/).join(' ');
  if (cronExpression.split(' ').length !== 5) throw invalid(`cronExpression "${cronExpression}" must have exactly 5 fields: minute hour day-of-month month day-of-week`);
  const timezone = input.timezone === undefined ? undefined : canonicalZone(input.timezone);
  let job: Cron;
  try { job = cron({ cronExpression, timezone }); } catch (error) {
    throw invalid(`cronExpression "${cronExpression}" is invalid: ${(error as Error).message.replace(/^CronPattern: /, '')}`);
  }
  if (!job.nextRun()) throw invalid(`cronExpression "${cronExpression}" never matches a date`);
  return { triggerType, cronExpression, ...(timezone && { timezone }) };
}

/** When a trigger enabled (or rescheduled) at `now` first runs. Throws 400 when a `once` time has already passed. */
export function firstRunAt(schedule: Schedule, now: number): number | undefined {
  if (schedule.triggerType === 'once') {
    const at = Date.parse(schedule.scheduledAtIso!);
    if (at < now) throw invalid(`scheduledAtIso ${schedule.scheduledAtIso} is in the past; choose a later time`);
    return at;
  }
  return nextRunAfter(schedule, now, now);
}

/**
 * The run after the one due at `dueAt`, strictly after `now`: missed occurrences are skipped, never
 * replayed. Intervals keep their phase (due + k × interval, no drift); `once` has none.
 */
export function nextRunAfter(schedule: Schedule, dueAt: number, now: number): number | undefined {
  if (schedule.triggerType === 'once') return undefined;
  if (schedule.triggerType === 'interval') {
    const interval = schedule.intervalMs!;
    return dueAt + interval * Math.max(1, Math.floor((now - dueAt) / interval) + 1);
  }
  return cron(schedule).nextRun(new Date(now))?.getTime();
}

/** The schedule in words: `every 5m`, `once at <ISO>`, `cron 0 9 * * 1-5 (Europe/Oslo)`. */
export function describeSchedule(schedule: Schedule): string {
  if (schedule.triggerType === 'interval') return `every ${formatDuration(schedule.intervalMs!)}`;
  if (schedule.triggerType === 'once') return `once at ${schedule.scheduledAtIso}`;
  return `cron ${schedule.cronExpression}${schedule.timezone ? ` (${schedule.timezone})` : ''}`;
}

const UNITS: [string, number][] = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]];

/** The largest unit that divides the duration exactly: 300000 → `5m`, 90000 → `90s`. */
export function formatDuration(ms: number): string {
  const [unit, size] = UNITS.find(([, size]) => ms % size === 0) ?? ['ms', 1];
  return `${ms / size}${unit}`;
}

/** A paused croner job, used only to compute run times (no timer of its own). Without a zone: the server's local time. */
function cron({ cronExpression, timezone }: Pick<Schedule, 'cronExpression' | 'timezone'>): Cron {
  return new Cron(cronExpression!, { timezone, paused: true, mode: '5-part' });
}

/** The canonical IANA name of a zone (`europe/oslo` → `Europe/Oslo`); 400 for an unknown one. */
function canonicalZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw invalid(`timezone "${zone}" is not an IANA time zone (e.g. Europe/Oslo, America/New_York, UTC)`);
  }
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Unix ms of an RFC 3339 date-time with a zone designator; undefined for anything else, including Feb 30 (which Date.parse rolls over). */
export function parseIsoInstant(text: string): number | undefined {
  const m = ISO_INSTANT.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second = 0, offsetHours = 0, offsetMinutes = 0] = [m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]].map((v) => (v === undefined ? undefined : Number(v)));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth || hour! > 23 || minute! > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}
