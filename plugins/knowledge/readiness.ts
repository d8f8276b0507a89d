import { errors } from '../../sdk/index.ts';

export type ReadinessState =
  | { kind: 'loading'; reason: string }
  | { kind: 'ready' }
  | { kind: 'unavailable'; reason: string };

/** Seconds a client is told to wait while the service loads (spec: Retry-After: 5). */
export const RETRY_AFTER_SECONDS = 5;
/** The longest a request may wait for the service to finish loading (spec: 60 s). */
const MAX_WAIT_MS = 60_000;

/** Whether the knowledge service can answer; requests wait a bounded time while it loads. */
export class Readiness {
  private state: ReadinessState = { kind: 'loading', reason: 'starting' };
  private readonly waiters = new Set<() => void>();

  get current(): ReadinessState { return this.state; }

  set(state: ReadinessState): void {
    this.state = state;
    for (const wake of this.waiters) wake();
  }

  /**
   * Resolves when the service is ready. While it loads, waits up to `waitMs` (capped at 60 s), then
   * throws 503 with Retry-After: 5; when it is unavailable for another reason, throws 503 without it.
   */
  async ready(waitMs: number, signal?: AbortSignal): Promise<void> {
    if (this.state.kind === 'loading' && waitMs > 0) await this.change(Math.min(waitMs, MAX_WAIT_MS), signal);
    this.assert();
  }

  /** Throws the 503 of the current state unless it is ready. */
  assert(): void {
    const state = this.state;
    if (state.kind === 'loading') throw errors.unavailable(`Knowledge service is still loading (${state.reason}); retry shortly`, RETRY_AFTER_SECONDS);
    if (state.kind === 'unavailable') throw errors.unavailable(`Knowledge service is not available: ${state.reason}`);
  }

  /** Resolves on the next state that is not loading, after `ms`, or when `signal` aborts. */
  private change(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(onChange);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const onChange = () => { if (this.state.kind !== 'loading') finish(); };
      const timer = setTimeout(finish, ms);
      this.waiters.add(onChange);
      signal?.addEventListener('abort', finish, { once: true });
    });
  }
}
