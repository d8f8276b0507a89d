import { Compile } from 'typebox/compile';
import { Type } from 'typebox';
import { safeFetch } from './safe-fetch.ts';
import type { SandboxCapability } from './sandbox.ts';

const FetchInit = Compile(Type.Object({
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,10}$' })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  body: Type.Optional(Type.String()),
}, { additionalProperties: false }));

const GUEST_FETCH_LIMITS = { timeoutMs: 15_000, maxBytes: 1024 * 1024 };

/**
 * The guest `fetch(url, {method?, headers?, body?})` → `{status, headers, text}`: every call goes through
 * the SSRF-guarded `safeFetch` (public addresses only, pinned, no redirects, size and time caps). The
 * arguments come from untrusted code, so they are checked like any other input.
 */
export function guestFetch(allowedHosts: string[]): SandboxCapability {
  return async ([url, init = {}], signal) => {
    if (typeof url !== 'string') throw new TypeError('fetch(url, init): url must be a string');
    if (!FetchInit.Check(init)) throw new TypeError('fetch(url, init): init may hold method, headers (string values) and body (a string)');
    const response = await safeFetch(url, { ...init, allowedHosts, signal, ...GUEST_FETCH_LIMITS });
    const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
    return { status: response.status, headers, text: response.text() };
  };
}
