import type { AgentEventLog } from './event-log.ts';

export interface AutonomyDeps {
  intervalMs: number;
  events: AgentEventLog;
  /** Instructions queued before the last stop. */
  queued: string[];
  /** Keeps the queue durably (an instruction acknowledged as queued must survive a restart). */
  saveQueue(queued: string[]): Promise<void>;
  /** One thinking cycle with the active model, given the latest earlier thoughts and any instructions to act on. */
  think(previous: string[], instructions: string[], source: string, signal: AbortSignal): Promise<string>;
}

const REMEMBERED_THOUGHTS = 5;
const MAX_QUEUED_INSTRUCTIONS = 50;

/**
 * The autonomy loop: while active, one thinking cycle per interval (skipped while the previous one
 * still runs). Each cycle is a run in the agent event log: start, thought or error, end. Instructions
 * queued for the next cycle (triggers with `next_autonomy_cycle`) are handed to that cycle; instructions
 * to act on now run a cycle at once, beside the loop.
 */
export class AutonomyLoop {
  private timer: NodeJS.Timeout | undefined;
  private readonly cycles = new Set<AbortController>();
  private thoughts: string[] = [];
  private queued: string[];
  private busy = false;
  private lastEvent: number | null = null;

  constructor(private readonly deps: AutonomyDeps) {
    this.queued = deps.queued.slice(-MAX_QUEUED_INSTRUCTIONS);
  }

  get thinking(): boolean { return this.cycles.size > 0; }
  get lastEventAt(): number | null { return this.lastEvent; }

  setActive(active: boolean): void {
    if (active && !this.timer) this.timer = setInterval(() => void this.tick(), this.deps.intervalMs);
    if (!active && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      for (const cycle of this.cycles) cycle.abort(new Error('Autonomy stopped'));
    }
  }

  /** Queues instructions for the next cycle (durably); the oldest are dropped past the cap. Resolves with the queue length. */
  async enqueue(instructions: string): Promise<number> {
    this.queued = [...this.queued, instructions].slice(-MAX_QUEUED_INSTRUCTIONS);
    await this.deps.saveQueue(this.queued);
    return this.queued.length;
  }

  /** Runs one cycle on these instructions now; rejects with the model's error. */
  runNow(instructions: string, source: string, signal?: AbortSignal): Promise<string> {
    return this.cycle([instructions], source, signal);
  }

  /** Forgets earlier thoughts and queued instructions (on reset). */
  forget(): void {
    this.thoughts = [];
    this.queued = [];
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const instructions = this.queued;
    this.queued = [];
    try {
      // Handed to this cycle: the queue is emptied first, so a crash mid-cycle does not replay them.
      if (instructions.length) await this.deps.saveQueue(this.queued);
      await this.cycle(instructions, 'autonomy');
    } catch {
      // Recorded as an error event by cycle(); the loop goes on.
    } finally {
      this.busy = false;
    }
  }

  private async cycle(instructions: string[], source: string, signal?: AbortSignal): Promise<string> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.cycles.add(controller);
    const run = this.deps.events.run();
    const emit = (payload: Record<string, unknown>) => { run.emit({ stream: 'autonomy', ...payload }); this.lastEvent = Date.now(); };
    emit({ phase: 'start', source, ...(instructions.length && { instructions: instructions.length }) });
    try {
      const text = await this.deps.think(this.thoughts, instructions, source, controller.signal);
      this.thoughts = [...this.thoughts, text].slice(-REMEMBERED_THOUGHTS);
      emit({ phase: 'thought', text });
      return text;
    } catch (error) {
      emit({ phase: 'error', error: (error as Error)?.message ?? String(error) });
      throw error;
    } finally {
      this.cycles.delete(controller);
      signal?.removeEventListener('abort', onAbort);
      emit({ phase: 'end' });
    }
  }
}
