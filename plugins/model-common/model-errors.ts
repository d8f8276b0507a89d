import { HttpError } from '../../sdk/index.ts';

/** What a vendor's SDK error says about the vendor's HTTP answer, in vendor-neutral terms. */
export interface VendorFailure {
  status: number;
  /** The vendor's own explanation (from its error body). */
  message: string;
  retryAfter?: string;
  /** The vendor rejected the credentials with a status other than 401/403 (Gemini answers 400). */
  authRejected?: boolean;
}

/** A vendor as errors name it, and how to read its SDK's errors. */
export interface Vendor {
  /** Display name, e.g. "OpenAI" or "Groq". */
  label: string;
  baseUrl: string;
  /** The env var holding the key, named in auth errors so the fix is obvious. */
  keyEnv: string;
  /** Values never to echo in an error message (the API key). */
  secrets: string[];
  /** Reads an HTTP failure out of the SDK's error; undefined when there was no HTTP answer (network, broken stream). */
  describe(error: unknown): VendorFailure | undefined;
}

/**
 * Maps a failed vendor call to our error body. A rejected key is a 502 MODEL_AUTH_FAILED, not a 401:
 * our own API answers 401 when the caller's token is wrong, and clients react to that by re-pairing.
 */
export function modelError(vendor: Vendor, error: unknown): HttpError {
  if (HttpError.is(error)) return error;
  const failure = vendor.describe(error);
  if (!failure) {
    return fail(vendor, 502, 'MODEL_UNAVAILABLE', `${vendor.label} at ${origin(vendor.baseUrl)} failed: ${rootCause(error)}`);
  }
  const { status } = failure;
  const said = `HTTP ${status}: ${failure.message}`;
  if (status === 401 || status === 403 || failure.authRejected) {
    return fail(vendor, 502, 'MODEL_AUTH_FAILED', `${vendor.label} rejected the API key; check ${vendor.keyEnv}. ${said}`, status);
  }
  const retry: Record<string, string> = failure.retryAfter ? { 'Retry-After': failure.retryAfter } : {};
  if (status === 429) return fail(vendor, 503, 'MODEL_RATE_LIMITED', `${vendor.label} is rate limiting requests. ${said}`, status, retry);
  if (status === 503 || status === 529) return fail(vendor, 503, 'MODEL_UNAVAILABLE', `${vendor.label} is overloaded. ${said}`, status, retry);
  if (status >= 500) return fail(vendor, 502, 'MODEL_UNAVAILABLE', `${vendor.label} failed. ${said}`, status);
  return fail(vendor, 502, 'MODEL_REQUEST_REJECTED', `${vendor.label} rejected the request. ${said}`, status);
}

/** The mapping above, for plugin descriptions (they go into the plugin list and docs). */
export const errorPolicy = 'Errors: a rejected key → 502 MODEL_AUTH_FAILED (not 401, which tells clients their own svc token is wrong); '
  + 'vendor unreachable or 5xx → 502 MODEL_UNAVAILABLE (503 when the vendor is overloaded); vendor 429 → 503 MODEL_RATE_LIMITED; '
  + 'other refusals (unknown model…) → 502 MODEL_REQUEST_REJECTED; no data for timeoutMs → 504 MODEL_TIMEOUT; details carry '
  + '{vendor, status}. A caller abort closes the vendor request and ends the stream without error.';

export function modelTimeout(vendor: Vendor, timeoutMs: number): HttpError {
  return fail(vendor, 504, 'MODEL_TIMEOUT', `${vendor.label} sent nothing for ${timeoutMs} ms`);
}

function fail(vendor: Vendor, status: number, code: string, message: string, vendorStatus?: number, headers: Record<string, string> = {}): HttpError {
  const details = [{ vendor: vendor.label, ...(vendorStatus !== undefined && { status: vendorStatus }) }];
  return new HttpError(status, code, scrub(message, vendor.secrets), details, headers);
}

function scrub(message: string, secrets: string[]): string {
  return secrets.filter(Boolean).reduce((text, secret) => text.replaceAll(secret, '[REDACTED]'), message);
}

/** Origin only: a base URL may carry credentials in its user-info. */
function origin(url: string): string {
  try { return new URL(url).origin; } catch { return 'the configured base URL'; }
}

/** The innermost cause says what really happened (e.g. "connect ECONNREFUSED 127.0.0.1:9"). */
function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
