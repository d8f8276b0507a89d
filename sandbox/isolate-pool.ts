import type IsolatedVM from 'isolated-vm';
import { GUEST_BOOTSTRAP } from './guest-bootstrap.ts';

type Ivm = typeof IsolatedVM;

/** A fresh isolate with its bootstrap evaluated and warmed; it serves exactly one run and is then disposed. */
export interface WarmIsolate {
  isolate: IsolatedVM.Isolate;
  run: IsolatedVM.Reference<(...args: unknown[]) => Promise<{ output: string; truncated: boolean }>>;
}

/**
 * Keeps a few isolates created ahead of time (at the default memory limit) and already warmed by one
 * run of our own code, so a run skips isolate + context creation and first-run compilation. Isolates
 * are never reused for untrusted code: each serves one run, so nothing a run leaves behind (globals,
 * pending promises) can reach the next one.
 */
export class IsolatePool {
  private readonly ready: WarmIsolate[] = [];
  private readonly creating = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly ivm: Ivm,
    private readonly defaultMemoryMb: number,
    private readonly size: number,
    private readonly onCatastrophicError: (message: string) => void,
  ) {
    this.refill();
  }

  /** A ready isolate: from the pool when the memory limit is the default one, else created now. */
  async take(memoryMb: number): Promise<WarmIsolate> {
    if (this.closed) throw new Error('The sandbox is shut down');
    const pooled = memoryMb === this.defaultMemoryMb ? this.ready.pop() : undefined;
    return pooled ?? this.create(memoryMb);
  }

  /**
   * Prepares isolates up to the pool size. Call it once a run is over, not while one is in flight:
   * creating an isolate blocks the event loop for about a millisecond.
   */
  refill(): void {
    while (!this.closed && this.ready.length + this.creating.size < this.size) {
      const pending = this.create(this.defaultMemoryMb).then(
        (warm) => { if (this.closed) dispose(warm.isolate); else this.ready.push(warm); },
        (error) => this.onCatastrophicError(`Could not prepare an isolate: ${(error as Error).message}`),
      );
      this.creating.add(pending);
      void pending.finally(() => this.creating.delete(pending));
    }
  }

  /** Disposes every pooled isolate and any still being created. */
  async close(): Promise<void> {
    this.closed = true;
    for (const warm of this.ready.splice(0)) dispose(warm.isolate);
    await Promise.allSettled([...this.creating]);
  }

  private async create(memoryMb: number): Promise<WarmIsolate> {
    const isolate = new this.ivm.Isolate({ memoryLimit: memoryMb, onCatastrophicError: this.onCatastrophicError });
    try {
      const context = await isolate.createContext();
      const run = await context.evalClosure(GUEST_BOOTSTRAP, [], { result: { reference: true } });
      // One run of our own code compiles the runner's path, so the real run pays only for its code.
      const empty = new this.ivm.ExternalCopy({ names: [], values: [], capNames: [] }).copyInto({ release: true });
      await run.apply(undefined, ['return { warm: [1].map(String) }', empty, 64], { result: { promise: true, copy: true } });
      return { isolate, run };
    } catch (error) {
      dispose(isolate);
      throw error;
    }
  }
}

export function dispose(isolate: IsolatedVM.Isolate): void {
  if (!isolate.isDisposed) isolate.dispose();
}
