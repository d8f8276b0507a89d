/**
 * Runs tasks one at a time per key, in arrival order; a failed task does not stop the ones behind it.
 * Keys with nothing pending hold no memory.
 */
export function keyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(() => undefined, () => undefined);
    tails.set(key, tail);
    void tail.then(() => { if (tails.get(key) === tail) tails.delete(key); });
    return result;
  };
}
export type KeyedQueue = ReturnType<typeof keyedQueue>;
