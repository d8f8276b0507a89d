import type { TObject } from 'typebox';
import type { PluginDef } from './types.ts';

export { Type } from 'typebox';
export type { Static, TSchema, TObject } from 'typebox';
export * from './types.ts';
export * from './tokens.ts';
export * from './errors.ts';
export * from './results.ts';
export * from './core.ts';
export * from './agent.ts';
export { createRegistry, type WatchedRegistry } from './registry.ts';
export * from './sandbox.ts';
export { guestFetch } from './guest-fetch.ts';
export * from './workbench.ts';
export { specRoutes } from './spec-routes.ts';
export { writeFileAtomic, syncDir } from './atomic-file.ts';
export { safeFetch, isPublicAddress, type SafeFetchOptions, type SafeResponse } from './safe-fetch.ts';
export type { SpecRoute, SpecRequest, SpecResponse } from './spec-routes.ts';

/** Declares a plugin; the kernel orders it by `requires`/`optional`/`provides` without running it. */
export function definePlugin<C extends TObject>(def: PluginDef<C>): PluginDef<C> {
  if (!/^[a-z][a-z0-9-]*$/.test(def.id)) throw new Error(`Invalid plugin id "${def.id}": use kebab-case`);
  return def;
}
