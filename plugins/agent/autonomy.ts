import type { AgentEventLog } from './event-log.ts';

export interface AutonomyDeps {
  intervalMs: number;
  events: AgentEventLog;
  /** One thinking cycle with the active model, given the latest earlier thoughts. */
  think(previous: string[], signal: AbortSignal): Promise<string>;
}

const REMEMBERED_THOUGHTS = 5;

/**
 * The autonomy loop: while active, one thinking cycle per interval (skipped while the previous one
 * still runs). Each cycle is a run in the agent event log: start, thought or error, end.
 */
export class AutonomyLoop {
  private timer: NodeJS.Timeout | undefined;
  private cycle: AbortController | undefined;
  private thoughts: string[] = [];
  private busy = false;

  constructor(private readonly deps: AutonomyDeps) {}

  get thinking(): boolean { return this.busy; }

  setActive(active: boolean): void {
    if (active && !this.timer) this.timer = setInterval(() => void this.tick(), this.deps.intervalMs);
    if (!active && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.cycle?.abort(new Error('Autonomy stopped'));
    }
  }

  /** Forgets earlier thoughts (on reset). */
  forget(): void { this.thoughts = []; }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const controller = (this.cycle = new AbortController());
    const run = this.deps.events.run();
    run.emit({ stream: 'autonomy', phase: 'start' });
    try {
      const text = await this.deps.think(this.thoughts, controller.signal);
      this.thoughts = [...this.thoughts, text].slice(-REMEMBERED_THOUGHTS);
      run.emit({ stream: 'autonomy', phase: 'thought', text });
    } catch (error) {
      run.emit({ stream: 'autonomy', phase: 'error', error: (error as Error)?.message ?? String(error) });
    } finally {
      this.busy = false;
      run.emit({ stream: 'autonomy', phase: 'end' });
    }
  }
}
