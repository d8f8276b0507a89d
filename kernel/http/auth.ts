import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthService } from '../../sdk/core.ts';
import { errors, type HttpError } from '../../sdk/errors.ts';
import type { Access } from '../../sdk/types.ts';

export interface AuthSettings {
  /** SVC_API_TOKEN, trimmed; empty means "no token configured". */
  token?: string;
  /** SVC_ALLOW_WS_QUERY_TOKEN=1: `/ws` may carry the token in `?token`/`apiKey`/`api_key`. */
  allowWsQueryToken?: boolean;
  /** NODE_ENV development/dev and SVC_DEV_AUTH_BYPASS=1: sensitive routes open from any origin. */
  devBypass?: boolean;
  /** NODE_ENV=production: strict routes need a token even from loopback. */
  production?: boolean;
  /** Host names accepted besides loopback ones (DNS-rebinding guard on loopback binds). */
  allowedHosts?: string[];
  /** Browser origins allowed by CORS besides loopback ones. */
  allowedOrigins?: string[];
  /** Check the Host header (on by default for loopback binds). */
  checkHost?: boolean;
}

export const SENSITIVE_MESSAGE = 'Sensitive endpoint requires API token authentication';
export const CORS_ALLOWED_HEADERS = 'Content-Type, Authorization, X-API-Token, X-Api-Key, X-Svc-Client-Id, X-Svc-UI-Language, x-svcos-token, X-Svc-Export-Token, X-Svc-Terminal-Token';
const LOOPBACK_IPS = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);
const TOKEN_HEADERS = ['x-svc-token', 'x-svcos-token', 'x-api-key', 'x-api-token'] as const;
const WS_QUERY_KEYS = ['token', 'apiKey', 'api_key'] as const;

// One-shot hash: no Hash object per call, which matters on the per-request token check.
const digest = (value: string) => hash('sha256', value, 'buffer');

/** Constant-time: both sides are hashed to equal-length digests before comparison. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export function isLoopbackIp(ip: string): boolean {
  return LOOPBACK_IPS.has(ip);
}

/** The token a request presents, by the spec's header priority. */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization);
    if (match) return match[1]!.trim();
  }
  for (const name of TOKEN_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value) return value.trim();
  }
  return undefined;
}

/** `/ws` token: headers first, then query keys when the query switch is on. */
export function presentedWsToken(headers: IncomingHttpHeaders, query: URLSearchParams, settings: AuthSettings): string | undefined {
  const fromHeaders = presentedToken(headers);
  if (fromHeaders || !settings.allowWsQueryToken) return fromHeaders;
  for (const key of WS_QUERY_KEYS) {
    const value = query.get(key);
    if (value) return value;
  }
  return undefined;
}

export function createAuthService(settings: AuthSettings): AuthService {
  const token = settings.token?.trim() || undefined;
  // The configured side never changes, so every request hashes only the candidate.
  const tokenDigest = token === undefined ? undefined : digest(token);
  return {
    tokenConfigured: token !== undefined,
    token: () => token,
    verify: (candidate) => tokenDigest !== undefined && candidate !== undefined && timingSafeEqual(digest(candidate), tokenDigest),
    equal: safeEqual,
    isLoopback: isLoopbackIp,
  };
}

/** Default-deny decision for one request; undefined means allowed. */
export function authorize(access: Access, auth: AuthService, settings: AuthSettings, request: { tokenValid: boolean; ip: string }): HttpError | undefined {
  if (access === 'public') return undefined;
  const sensitive = access !== 'token';
  if (auth.tokenConfigured) {
    if (request.tokenValid || (sensitive && settings.devBypass)) return undefined;
    return errors.unauthorized();
  }
  if (!sensitive || settings.devBypass) return undefined;
  if (access === 'sensitive-strict' && settings.production) return errors.forbidden(SENSITIVE_MESSAGE);
  return isLoopbackIp(request.ip) ? undefined : errors.forbidden(SENSITIVE_MESSAGE);
}

/** DNS-rebinding guard: a loopback-bound server answers only to loopback and listed host names. */
export function hostAllowed(hostHeader: string | undefined, settings: AuthSettings): boolean {
  if (!settings.checkHost || !hostHeader) return true;
  const host = hostHeader.startsWith('[') ? hostHeader.slice(1, hostHeader.indexOf(']')) : hostHeader.replace(/:\d+$/, '');
  const name = host.toLowerCase();
  return LOOPBACK_HOSTS.has(name) || name.endsWith('.localhost') || (settings.allowedHosts ?? []).includes(name);
}

export function originAllowed(origin: string, settings: AuthSettings): boolean {
  if ((settings.allowedOrigins ?? []).includes(origin)) return true;
  try {
    const { protocol, hostname } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && (LOOPBACK_HOSTS.has(hostname.replace(/^\[|\]$/g, '')));
  } catch {
    return false;
  }
}
