import { randomUUID } from 'node:crypto';
import { errors, type InstructionOutcome, type Logger, type TriggerSummary } from '../../sdk/index.ts';
import { afterRun, compose, editable, iso, present, scheduleKey } from './record.ts';
import { describeSchedule, firstRunAt, formatDuration, nextRunAfter } from './schedule.ts';
import type { CreateTrigger, StoredTrigger, Trigger, TriggerRun, UpdateTrigger } from './schemas.ts';
import type { TriggerQueries, TriggerStore } from './store.ts';

/** At most this many triggers are enabled at once. */
export const MAX_ENABLED = 100;
const DAY_MS = 86_400_000;

export interface TriggerServiceDeps {
  store: TriggerStore;
  now(): number;
  /** Hands a trigger's instructions to the agent; throws when it cannot (no agent, agent not running). */
  execute(trigger: StoredTrigger): Promise<InstructionOutcome>;
  /** A scheduled run found later than this (server down, machine asleep) is skipped instead of run. */
  catchUpWindowMs: number;
  /** After each recorded run (to broadcast it). */
  onRun(run: TriggerRun): void;
  /** After anything that may move the earliest next run (to re-arm the timer). */
  onChange(): void;
  log: Pick<Logger, 'warn'>;
}

const notFound = (id: string) => errors.notFound(`Trigger ${id} not found`, 'TRIGGER_NOT_FOUND');

/**
 * Triggers: CRUD with the enabled limit, manual and scheduled execution through the agent, run history.
 * A scheduled firing first advances the trigger's next run (persisted), then executes in the background:
 * a crash mid-run never replays it. One trigger never runs twice at once.
 */
export function createTriggers(deps: TriggerServiceDeps) {
  const { store } = deps;
  const running = new Set<string>();
  const inFlight = new Set<Promise<unknown>>();

  const assertRoom = async (q: TriggerQueries) => {
    if (await q.countEnabled() >= MAX_ENABLED) {
      throw errors.http(429, 'TOO_MANY_TRIGGERS', `At most ${MAX_ENABLED} triggers can be enabled at once; disable or delete one first`);
    }
  };

  const existing = async (id: string) => {
    const trigger = await store.get(id);
    if (!trigger) throw notFound(id);
    return trigger;
  };

  /** Saves a run and its effect on the trigger; undefined when the trigger was deleted meanwhile. */
  const apply = async (q: TriggerQueries, run: TriggerRun) => {
    const fresh = await q.get(run.triggerId);
    if (!fresh) return undefined;
    const updated = afterRun(fresh, run, deps.now());
    await q.save(updated);
    await q.addRun(run);
    return updated;
  };

  const published = (run: TriggerRun, trigger: StoredTrigger | undefined) => {
    if (trigger) {
      deps.onRun(run);
      deps.onChange();
    }
    return { run, trigger };
  };

  /** Executes a trigger reserved in `running` and records the run; releases the reservation. */
  const perform = (trigger: StoredTrigger, source: TriggerRun['source']) => {
    const work = (async () => {
      try {
        const startedAt = deps.now();
        let outcome: Pick<TriggerRun, 'status' | 'error' | 'mode'>;
        try {
          outcome = { status: 'success', mode: (await deps.execute(trigger)).mode };
        } catch (error) {
          outcome = { status: 'error', error: error instanceof Error ? error.message : String(error) };
        }
        const finishedAt = deps.now();
        const run: TriggerRun = { id: randomUUID(), triggerId: trigger.id, startedAt, finishedAt, latencyMs: finishedAt - startedAt, source, ...outcome };
        return published(run, await store.tx((q) => apply(q, run)));
      } finally {
        running.delete(trigger.id);
      }
    })();
    inFlight.add(work);
    void work.catch((error) => deps.log.warn(`Trigger ${trigger.id}: recording its run failed: ${(error as Error).message}`)).finally(() => inFlight.delete(work));
    return work;
  };

  /** Claims one due trigger: advances its schedule, then runs it or records why the run is skipped. */
  const fire = async (id: string, now: number) => {
    let launch: StoredTrigger | undefined;
    let skipped: { run: TriggerRun; trigger: StoredTrigger | undefined } | undefined;
    try {
      await store.tx(async (q) => {
        const trigger = await q.get(id);
        if (!trigger?.enabled || trigger.nextRunAtMs === undefined || trigger.nextRunAtMs > now) return; // changed meanwhile
        const dueAt = trigger.nextRunAtMs;
        const reason = now - dueAt > deps.catchUpWindowMs
          ? `Skipped: due at ${iso(dueAt)}, more than ${formatDuration(deps.catchUpWindowMs)} ago (the catch-up window)`
          : running.has(id) ? 'Skipped: the previous run was still in progress' : undefined;
        const last = trigger.triggerType === 'once' || (!reason && trigger.maxRuns !== undefined && trigger.runCount + 1 >= trigger.maxRuns);
        const nextRunAtMs = last ? undefined : nextRunAfter(trigger, dueAt, now);
        const advanced: StoredTrigger = { ...trigger, nextRunAtMs, enabled: nextRunAtMs !== undefined, updatedAt: now };
        if (reason) {
          const run: TriggerRun = { id: randomUUID(), triggerId: id, startedAt: now, finishedAt: now, latencyMs: 0, status: 'skipped', error: reason, source: 'scheduler' };
          await q.save(advanced);
          skipped = { run, trigger: await apply(q, run) };
          return;
        }
        await q.save(advanced);
        running.add(id); // reserved under the database lock, so a manual run cannot slip in before the launch
        launch = advanced;
      });
    } catch (error) {
      if (launch) running.delete(id);
      throw error;
    }
    if (skipped) published(skipped.run, skipped.trigger);
    if (launch) void perform(launch, 'scheduler');
  };

  return {
    list: async () => (await store.list()).map(present),
    get: async (id: string) => present(await existing(id)),

    async create(input: CreateTrigger): Promise<Trigger> {
      const now = deps.now();
      const trigger = compose({ ...editable(input), id: randomUUID(), runCount: 0, createdAt: now, updatedAt: now } as StoredTrigger, now);
      if (trigger.enabled) trigger.nextRunAtMs = firstRunAt(trigger, now);
      await store.tx(async (q) => {
        if (trigger.enabled) await assertRoom(q);
        await q.save(trigger);
      });
      deps.onChange();
      return present(trigger);
    },

    /** Partial update; `null` removes timezone or maxRuns. Enabling or a schedule change recomputes the next run. */
    async update(id: string, patch: UpdateTrigger): Promise<Trigger> {
      const updated = await store.tx(async (q) => {
        const before = await q.get(id);
        if (!before) throw notFound(id);
        const now = deps.now();
        const after = compose({ ...before, ...editable(patch) }, now);
        const enabling = after.enabled && !before.enabled;
        if (enabling) await assertRoom(q);
        if (after.enabled && after.maxRuns !== undefined && after.runCount >= after.maxRuns) {
          throw errors.badRequest(`maxRuns ${after.maxRuns} is already reached (runCount ${after.runCount}): raise or remove maxRuns to keep the trigger enabled`);
        }
        after.nextRunAtMs = !after.enabled ? undefined : enabling || scheduleKey(after) !== scheduleKey(before) ? firstRunAt(after, now) : before.nextRunAtMs;
        await q.save(after);
        return after;
      });
      deps.onChange();
      return present(updated);
    },

    async remove(id: string): Promise<void> {
      if (!await store.tx((q) => q.remove(id))) throw notFound(id);
      deps.onChange();
    },

    /** Deletes every trigger and its history (agent reset); runs in flight finish but record nothing. */
    async clear(): Promise<void> {
      await store.tx((q) => q.clear());
      deps.onChange();
    },

    /** Runs a trigger now (source `manual`), enabled or not; 409 TRIGGER_RUNNING while it runs. */
    async execute(id: string): Promise<{ run: TriggerRun; trigger: Trigger }> {
      const trigger = await existing(id);
      if (running.has(id)) throw errors.conflict(`Trigger ${id} is already running`, 'TRIGGER_RUNNING');
      running.add(id);
      const { run, trigger: after } = await perform(trigger, 'manual');
      if (!after) throw notFound(id);
      return { run, trigger: present(after) };
    },

    async runs(id: string): Promise<TriggerRun[]> {
      await existing(id);
      return store.runs(id);
    },

    /** Fires every enabled trigger due at `now` (the scheduler's tick); one failing trigger does not stop the others. */
    async fireDue(now: number): Promise<void> {
      for (const { id } of await store.due(now)) {
        try { await fire(id, now); } catch (error) {
          deps.log.warn(`Trigger ${id} could not be fired: ${(error as Error).message}`);
        }
      }
    },

    /** Unix ms of the earliest next run of an enabled trigger. */
    earliest: async () => (await store.next())?.nextRunAtMs,

    async summaries(): Promise<TriggerSummary[]> {
      return (await store.list()).map((t) => ({ id: t.id, displayName: t.displayName, enabled: t.enabled, schedule: describeSchedule(t) }));
    },

    /** Counts for the health snapshot. */
    async stats() {
      const all = await store.list();
      const next = await store.next();
      return {
        activeTriggers: all.filter((t) => t.enabled).length,
        totalTriggers: all.length,
        runningTriggers: running.size,
        nextDue: next ? { triggerId: next.id, displayName: next.displayName, nextRunAtMs: next.nextRunAtMs!, nextRunAtIso: iso(next.nextRunAtMs!) } : null,
        totalRuns: all.reduce((sum, t) => sum + t.runCount, 0),
        failuresLast24h: await store.failuresSince(deps.now() - DAY_MS),
      };
    },

    /** Resolves when no execution is in flight. */
    async idle(): Promise<void> {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
  };
}
export type TriggerService = ReturnType<typeof createTriggers>;
