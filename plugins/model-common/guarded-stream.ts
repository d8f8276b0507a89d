import type { ModelChunk, ModelRequest } from '../../sdk/index.ts';
import { modelError, modelTimeout, type Vendor } from './model-errors.ts';

/** Opens the vendor's stream with the given signal (resolves once the vendor answered with headers). */
export type OpenStream<E> = (signal: AbortSignal) => Promise<AsyncIterable<E>>;
/** Turns the SDK's events into model chunks. */
export type Translate<E> = (events: AsyncIterable<E>) => AsyncIterable<ModelChunk>;

/**
 * Runs one streamed vendor call. The SDK's signal aborts when the caller's signal does, when the vendor
 * stays silent for `timeoutMs`, or when the consumer stops early, so the vendor connection never outlives
 * the call. A caller abort ends the stream quietly (the caller asked for it); other failures throw HttpError.
 */
export async function* guardedStream<E>(vendor: Vendor, request: ModelRequest, timeoutMs: number, open: OpenStream<E>, translate: Translate<E>): AsyncGenerator<ModelChunk> {
  const watchdog = new Watchdog(timeoutMs);
  try {
    watchdog.arm();
    const events = await open(AbortSignal.any([request.signal, watchdog.signal]));
    yield* translate(watchdog.watch(events));
    // Some SDKs end a stream quietly when its signal aborts, so a timeout can look like a complete answer.
    if (watchdog.fired) throw watchdog.signal.reason;
  } catch (error) {
    if (request.signal.aborted) return;
    if (watchdog.fired) throw modelTimeout(vendor, timeoutMs);
    throw modelError(vendor, error);
  } finally {
    watchdog.stop();
  }
}

/**
 * Aborts when the vendor is silent for too long. It only counts time spent waiting for the vendor:
 * while the consumer handles an event the clock is paused, so a slow client never looks like a slow vendor.
 */
class Watchdog {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  fired = false;

  constructor(private readonly timeoutMs: number) {}

  get signal(): AbortSignal { return this.controller.signal; }

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new DOMException(`No data for ${this.timeoutMs} ms`, 'TimeoutError'));
    }, this.timeoutMs);
  }

  async *watch<E>(events: AsyncIterable<E>): AsyncGenerator<E> {
    this.arm();
    for await (const event of events) {
      clearTimeout(this.timer);
      yield event;
      this.arm();
    }
  }

  /** Stops the clock and aborts whatever is still open (a no-op after a complete stream). */
  stop(): void {
    clearTimeout(this.timer);
    this.controller.abort();
  }
}
