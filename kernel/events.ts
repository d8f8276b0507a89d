import type { EventDef } from '../sdk/tokens.ts';

type Listener = { owner: string; fn: (payload: unknown) => void | Promise<void> };

/** Typed fan-out bus. Each listener is isolated: a throw or rejection is reported, never reaches the emitter. */
export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  constructor(private readonly onListenerError: (owner: string, event: string, error: unknown) => void) {}

  on<T>(owner: string, event: EventDef<T>, fn: (payload: T) => void | Promise<void>): () => void {
    const listener: Listener = { owner, fn: fn as Listener['fn'] };
    let set = this.listeners.get(event.name);
    if (!set) this.listeners.set(event.name, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(event.name);
    };
  }

  emit<T>(event: EventDef<T>, payload: T): void {
    const set = this.listeners.get(event.name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        const result = listener.fn(payload);
        if (result instanceof Promise) result.catch((error) => this.onListenerError(listener.owner, event.name, error));
      } catch (error) {
        this.onListenerError(listener.owner, event.name, error);
      }
    }
  }

  ownedBy(owner: string): number {
    let count = 0;
    for (const set of this.listeners.values()) for (const l of set) if (l.owner === owner) count++;
    return count;
  }
}
