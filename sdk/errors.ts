const brand = Symbol.for('svc.http-error');

/** An error that becomes `{error, code, details?}` with its status; `extra` fields join the body. */
export class HttpError extends Error {
  readonly [brand] = true;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown[],
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
  static is(value: unknown): value is HttpError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }
}

/** Constructors for the spec's error codes. */
export const errors = {
  badRequest: (message = 'Invalid request', details?: unknown[], code = 'INVALID_REQUEST') => new HttpError(400, code, message, details),
  unauthorized: (message = 'Unauthorized', code = 'UNAUTHORIZED') => new HttpError(401, code, message),
  forbidden: (message = 'Forbidden', code = 'FORBIDDEN') => new HttpError(403, code, message),
  notFound: (message = 'Not found', code = 'NOT_FOUND') => new HttpError(404, code, message),
  conflict: (message = 'Conflict', code = 'CONFLICT') => new HttpError(409, code, message),
  gone: (message = 'Gone', code = 'GONE') => new HttpError(410, code, message),
  tooLarge: (message = 'Payload too large', code = 'PAYLOAD_TOO_LARGE') => new HttpError(413, code, message),
  rateLimited: (message = 'Too many requests', retryAfterSeconds?: number) =>
    new HttpError(429, 'RATE_LIMITED', message, undefined, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {}),
  unavailable: (message = 'Service unavailable', retryAfterSeconds?: number) =>
    new HttpError(503, 'SERVICE_UNAVAILABLE', message, undefined, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {}),
  internal: (message = 'Internal error', code = 'INTERNAL_ERROR') => new HttpError(500, code, message),
  /** Any status and code, with extra body fields (e.g. `{ok: false, validationErrors}`). */
  http: (status: number, code: string, message: string, extra: Record<string, unknown> = {}) =>
    new HttpError(status, code, message, undefined, {}, extra),
};
