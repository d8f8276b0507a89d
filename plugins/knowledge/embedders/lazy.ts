/**
 * Creates a value on first use only (so an unused embedder costs nothing at startup) and shares it;
 * a failed creation is forgotten, so the next use tries again.
 */
export function lazy<T>(create: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    if (!value) {
      value = create();
      value.catch(() => { value = undefined; });
    }
    return value;
  };
}
