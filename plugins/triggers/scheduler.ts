/** Time as the scheduler sees it: injectable so that tests drive it without waiting. */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** Longest delay a Node timer takes (larger ones fire at once); a later run re-arms on wake-up. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface SchedulerDeps {
  clock: Clock;
  /** Fires whatever is due at `now`. */
  fireDue(now: number): Promise<void>;
  /** Unix ms of the earliest next run, if any. */
  earliest(): Promise<number | undefined>;
  onError(error: unknown): void;
}

/**
 * One timer, armed for the earliest next run of all triggers (not one per trigger). Ticks and re-arms
 * run one at a time. `start` ticks at once, so runs missed while the server was down fire at startup.
 */
export function createScheduler(deps: SchedulerDeps) {
  const { clock } = deps;
  let active = false;
  let handle: unknown;
  let lastTickAt: number | null = null;
  let chain: Promise<void> = Promise.resolve();

  const serial = (step: () => Promise<void>) => (chain = chain.then(step).catch(deps.onError));
  const disarm = () => {
    if (handle !== undefined) clock.clearTimer(handle);
    handle = undefined;
  };

  async function arm(): Promise<void> {
    disarm();
    if (!active) return;
    const at = await deps.earliest();
    if (!active || at === undefined) return;
    handle = clock.setTimer(() => {
      handle = undefined;
      void serial(tick);
    }, Math.min(Math.max(at - clock.now(), 0), MAX_TIMER_MS));
  }

  async function tick(): Promise<void> {
    if (!active) return;
    lastTickAt = clock.now();
    await deps.fireDue(lastTickAt);
    await arm();
  }

  return {
    /** Starts ticking; the first tick (catch-up) runs at once. */
    start(): Promise<void> {
      active = true;
      return serial(tick);
    },
    /** Re-arms the timer after a change to any trigger. */
    rearm: (): Promise<void> => serial(arm),
    stop(): void {
      active = false;
      disarm();
    },
    /** Resolves when queued ticks and re-arms are done. */
    settled: (): Promise<void> => chain,
    status: () => ({ schedulerRunning: active, lastTickAt }),
  };
}
export type Scheduler = ReturnType<typeof createScheduler>;
