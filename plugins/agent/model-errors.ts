import { HttpError } from '../../sdk/index.ts';

/** Why a reply was cut short by us rather than by the provider. */
export type AbortCause = 'timeout' | 'client' | 'session';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

/** The HTTP status an error carries (`status` or `statusCode`), if any. */
function statusOf(error: unknown): number | undefined {
  const value = (error as { status?: unknown; statusCode?: unknown } | null);
  const status = value?.status ?? value?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}

/** A network error code anywhere on the `cause` chain (vendor SDKs wrap fetch errors). */
function networkCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  }
  return undefined;
}

/**
 * Maps whatever a model provider threw (HttpError-compatible or plain) to the reply's error:
 * rejected key → 401, rate limit → 429, vendor unavailable or unreachable → 503, anything else → 502.
 * Our own aborts map to 502 MODEL_TIMEOUT, 499 (client gone) and 503 (agent stopped).
 */
export function modelFailure(error: unknown, provider: string, cause: AbortCause | undefined, timeoutMs: number): HttpError {
  if (cause === 'timeout') return new HttpError(502, 'MODEL_TIMEOUT', `Model provider "${provider}" did not finish within ${timeoutMs} ms`);
  if (cause === 'client') return new HttpError(499, 'CLIENT_CLOSED', 'The client closed the request');
  if (cause === 'session') return new HttpError(503, 'SERVICE_UNAVAILABLE', 'The agent stopped while replying');
  // Provider plugins already map vendor failures to precise codes (model-common); keep them.
  if (HttpError.is(error)) return error;
  const message = (error as Error)?.message || String(error);
  const status = statusOf(error);
  // 502, not 401: a 401 would tell the client that *its* token is wrong.
  if (status === 401 || status === 403) return new HttpError(502, 'MODEL_AUTH_FAILED', `Model provider "${provider}" rejected its API key: ${message}`);
  if (status === 429) return new HttpError(429, 'RATE_LIMITED', `Model provider "${provider}" is rate limiting requests: ${message}`);
  if (status === 503) return new HttpError(503, 'SERVICE_UNAVAILABLE', `Model provider "${provider}" is unavailable: ${message}`);
  const code = networkCode(error);
  if (code) return new HttpError(503, 'SERVICE_UNAVAILABLE', `Model provider "${provider}" is unreachable (${code})`);
  return new HttpError(502, 'MODEL_ERROR', `Model provider "${provider}" failed: ${message}`);
}
