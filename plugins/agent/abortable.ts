/** Settles like `work`, or rejects with the signal's reason as soon as it aborts (the loser's outcome is dropped). */
export async function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) throw signal.reason;
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Iterates `source` until the signal aborts, even when the source ignores its signal and hangs. */
export async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) { finished = true; return; }
      yield next.value;
    }
  } finally {
    // A hung source may never settle; ask it to stop without waiting for it.
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
