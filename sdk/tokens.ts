import type { TSchema } from 'typebox';

/** A typed reference to a service; identity is the string id, so copies of the SDK agree. */
export interface Token<T> { readonly id: string; readonly __type?: T }

/** Creates a service token, e.g. `createToken<KnowledgeService>('knowledge.service')`. */
export function createToken<T>(id: string): Token<T> {
  if (!/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/.test(id)) throw new Error(`Invalid token id "${id}": use dotted kebab-case`);
  return { id };
}

/** A typed event on the kernel bus; names read `domain.noun.verb-past`. */
export interface EventDef<T> { readonly name: string; readonly schema?: TSchema; readonly __payload?: T }

/** Defines an event; the optional schema documents the payload. */
export function defineEvent<T>(name: string, schema?: TSchema): EventDef<T> {
  return { name, schema };
}
