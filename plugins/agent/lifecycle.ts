import { errors, type AgentState } from '../../sdk/index.ts';

export type LifecycleOperation = 'start' | 'stop' | 'pause' | 'resume' | 'restart';

/** Where each operation may start from; anything else is a 409. */
const ALLOWED_FROM: Record<LifecycleOperation, readonly AgentState[]> = {
  start: ['not_started', 'stopped', 'error'],
  stop: ['running', 'paused', 'error'],
  pause: ['running'],
  resume: ['paused'],
  restart: ['not_started', 'running', 'paused', 'stopped', 'error'],
};

/**
 * The runtime state machine: not_started → starting → running ⇄ paused, running/paused → stopped,
 * any settled state → restarting → running. Uptime counts from the last (re)start and survives a pause.
 */
export class Lifecycle {
  private current: AgentState = 'not_started';
  private since: number | null = null;

  constructor(private readonly onChange: (state: AgentState, previous: AgentState) => void, private readonly now = Date.now) {}

  get state(): AgentState { return this.current; }
  get startedAt(): number | null { return this.since; }
  uptime(): number { return this.since === null ? 0 : this.now() - this.since; }

  /** Throws 409 INVALID_STATE unless `operation` is allowed in the current state. */
  check(operation: LifecycleOperation): void {
    if (!ALLOWED_FROM[operation].includes(this.current)) {
      throw errors.conflict(`Cannot ${operation} the agent while it is ${this.current}`, 'INVALID_STATE');
    }
  }

  set(state: AgentState): void {
    const previous = this.current;
    if (state === previous) return;
    this.current = state;
    if (state === 'running' && (previous === 'starting' || previous === 'restarting')) this.since = this.now();
    if (state === 'stopped' || state === 'error' || state === 'not_started') this.since = null;
    this.onChange(state, previous);
  }
}
