// Next-run computation and schedule validation of the triggers plugin (pure functions, croner for cron).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeSchedule, firstRunAt, formatDuration, nextRunAfter, normalizeSchedule, parseIsoInstant, type Schedule } from '../../plugins/triggers/schedule.ts';
import { HttpError } from '../../sdk/index.ts';

const MIN = 60_000;
const at = (iso: string) => Date.parse(iso);
/** The 400 message a schedule is rejected with (fails the test when it is accepted). */
function rejection(input: Schedule, now = at('2030-01-01T00:00:00Z')): string {
  try {
    firstRunAt(normalizeSchedule(input), now);
  } catch (error) {
    assert.ok(HttpError.is(error), String(error));
    assert.equal([error.status, error.code], [400, 'INVALID_REQUEST']);
    return error.message;
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`);
}

test('interval: first run one interval after now; the next keeps the phase and is never in the past', () => {
  const interval: Schedule = { triggerType: 'interval', intervalMs: 5 * MIN };
  const t0 = at('2030-01-01T00:00:00Z');
  assert.is(firstRunAt(interval, t0), t0 + 5 * MIN);
  assert.is(nextRunAfter(interval, t0, t0 + 1234), t0 + 5 * MIN, 'a late run does not shift the next one (no drift)');
  assert.is(nextRunAfter(interval, t0, t0 + 5 * MIN), t0 + 10 * MIN, 'strictly after now');
  assert.is(nextRunAfter(interval, t0, t0 + 17 * MIN), t0 + 20 * MIN, 'missed occurrences are skipped, not replayed');
});

test('once: runs at its time, then never again; the time is normalized to UTC', () => {
  const once = normalizeSchedule({ triggerType: 'once', scheduledAtIso: '2030-06-01T09:00:00+02:00' });
  assert.equal(once, { triggerType: 'once', scheduledAtIso: '2030-06-01T07:00:00.000Z' });
  assert.is(firstRunAt(once, at('2030-01-01T00:00:00Z')), at('2030-06-01T07:00:00Z'));
  assert.is(nextRunAfter(once, at('2030-06-01T07:00:00Z'), at('2030-06-01T07:00:01Z')), undefined);
});

test('cron with a time zone follows local time across both DST changes (Europe/Oslo)', () => {
  const nine = normalizeSchedule({ triggerType: 'cron', cronExpression: ' 0  9 * * * ', timezone: 'europe/oslo' });
  assert.equal(nine, { triggerType: 'cron', cronExpression: '0 9 * * *', timezone: 'Europe/Oslo' });
  // Spring forward on 2025-03-30: 09:00 is 08:00Z the day before (CET) and 07:00Z that day (CEST), 23 h apart.
  const before = nextRunAfter(nine, 0, at('2025-03-28T12:00:00Z'))!;
  assert.is(new Date(before).toISOString(), '2025-03-29T08:00:00.000Z');
  assert.is(new Date(nextRunAfter(nine, before, before)!).toISOString(), '2025-03-30T07:00:00.000Z');
  // Fall back on 2025-10-26: 07:00Z (CEST) then 08:00Z (CET), 25 h apart.
  const autumn = nextRunAfter(nine, 0, at('2025-10-24T12:00:00Z'))!;
  assert.is(new Date(autumn).toISOString(), '2025-10-25T07:00:00.000Z');
  assert.is(new Date(nextRunAfter(nine, autumn, autumn)!).toISOString(), '2025-10-26T08:00:00.000Z');
  // Weekdays only: Friday 2025-03-28 09:00 local → next is Monday 2025-03-31 (CEST).
  const weekdays = normalizeSchedule({ triggerType: 'cron', cronExpression: '0 9 * * 1-5', timezone: 'Europe/Oslo' });
  assert.is(new Date(firstRunAt(weekdays, at('2025-03-28T08:30:00Z'))!).toISOString(), '2025-03-31T07:00:00.000Z');
});

test('cron without a time zone runs in the server\'s local zone; UTC is accepted', () => {
  const utc = normalizeSchedule({ triggerType: 'cron', cronExpression: '*/15 * * * *', timezone: 'UTC' });
  assert.is(nextRunAfter(utc, 0, at('2030-01-01T10:07:00Z')), at('2030-01-01T10:15:00Z'));
  assert.equal(normalizeSchedule({ triggerType: 'cron', cronExpression: '0 12 * * *' }), { triggerType: 'cron', cronExpression: '0 12 * * *' });
});

test('fields of other types are dropped', () => {
  assert.equal(normalizeSchedule({ triggerType: 'interval', intervalMs: MIN, cronExpression: '* * * * *', timezone: 'UTC', scheduledAtIso: 'x' }), { triggerType: 'interval', intervalMs: MIN });
});

test('invalid input: each is 400 INVALID_REQUEST with a message that names the problem', () => {
  assert.match(rejection({ triggerType: 'interval' }), /need intervalMs/);
  assert.match(rejection({ triggerType: 'interval', intervalMs: MIN - 1 }), /60000 \(1 minute\) to 2678400000 \(31 days\)/);
  assert.match(rejection({ triggerType: 'interval', intervalMs: 31 * 24 * 60 * MIN + 1 }), /31 days/);
  assert.match(rejection({ triggerType: 'once' }), /need scheduledAtIso/);
  for (const bad of ['tomorrow', '2030-02-30T10:00:00Z', '2030-01-01T24:00:00Z', '2030-01-01T10:00:00', '2030-01-01', '2030-01-01T10:00:00+0200']) {
    assert.match(rejection({ triggerType: 'once', scheduledAtIso: bad }), /is not an ISO 8601 date-time/, bad);
  }
  assert.match(rejection({ triggerType: 'once', scheduledAtIso: '2029-12-31T23:59:59Z' }), /is in the past/);
  assert.match(rejection({ triggerType: 'cron' }), /need cronExpression/);
  assert.match(rejection({ triggerType: 'cron', cronExpression: '0 0 9 * * *' }), /exactly 5 fields/);
  assert.match(rejection({ triggerType: 'cron', cronExpression: '@daily' }), /exactly 5 fields/);
  assert.match(rejection({ triggerType: 'cron', cronExpression: '61 * * * *' }), /is invalid: .*minute/);
  assert.match(rejection({ triggerType: 'cron', cronExpression: 'a b c d e' }), /is invalid/);
  assert.match(rejection({ triggerType: 'cron', cronExpression: '0 0 30 2 *' }), /never matches/);
  assert.match(rejection({ triggerType: 'cron', cronExpression: '0 9 * * *', timezone: 'Mars/Olympus' }), /timezone "Mars\/Olympus" is not an IANA time zone/);
});

test('ISO instants: offsets and fractions accepted, calendar-impossible dates refused', () => {
  assert.is(parseIsoInstant('2030-01-01T10:00Z'), at('2030-01-01T10:00:00Z'));
  assert.is(parseIsoInstant('2030-01-01T10:00:00.5-05:30'), at('2030-01-01T15:30:00.500Z'));
  assert.is(parseIsoInstant('2028-02-29T00:00:00Z'), at('2028-02-29T00:00:00Z'), 'leap day');
  assert.is(parseIsoInstant('2030-02-29T00:00:00Z'), undefined);
  assert.is(parseIsoInstant('2030-13-01T00:00:00Z'), undefined);
});

test('the schedule in words', () => {
  assert.is(describeSchedule({ triggerType: 'interval', intervalMs: 5 * MIN }), 'every 5m');
  assert.is(describeSchedule({ triggerType: 'interval', intervalMs: 90_000 }), 'every 90s');
  assert.is(describeSchedule({ triggerType: 'once', scheduledAtIso: '2030-06-01T07:00:00.000Z' }), 'once at 2030-06-01T07:00:00.000Z');
  assert.is(describeSchedule({ triggerType: 'cron', cronExpression: '0 9 * * 1-5', timezone: 'Europe/Oslo' }), 'cron 0 9 * * 1-5 (Europe/Oslo)');
  assert.is(describeSchedule({ triggerType: 'cron', cronExpression: '0 9 * * *' }), 'cron 0 9 * * *');
  assert.equal([formatDuration(86_400_000), formatDuration(7_200_000), formatDuration(60_500)], ['1d', '2h', '60500ms']);
});

test.run();
