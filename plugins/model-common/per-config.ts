/**
 * Memoizes `create` per configuration object. A plugin's config object is replaced (never mutated) when
 * it changes, so an SDK client lives exactly as long as the settings it was built from.
 */
export function perConfig<C extends object, T>(create: (config: C) => T): (config: C) => T {
  const made = new WeakMap<C, T>();
  return (config) => {
    if (!made.has(config)) made.set(config, create(config));
    return made.get(config)!;
  };
}
