/**
 * The one error hierarchy of the service. Services throw these; the HTTP layer maps them to
 * RFC 9457 problem+json in one place (src/api/problem.ts). Faults that are part of a normal
 * outcome (a jammed bolt, a timed-out command) are values, not exceptions.
 */
export interface FieldError {
  /** JSON pointer-ish path of the offending field, e.g. `/valid_from`. */
  field: string;
  message: string;
}

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    /** Stable machine-readable code, e.g. `ekey_quota_exhausted`. */
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
    /** Extra members of the problem body (RFC 9457 §3.2), e.g. why an eKey is not usable. */
    readonly extensions?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const badRequest = (code: string, message: string, errors?: FieldError[]): ServiceError =>
  new ServiceError(400, code, message, errors);

export const validationFailed = (errors: FieldError[], message = 'The request is invalid.'): ServiceError =>
  new ServiceError(400, 'validation_failed', message, errors);

export const unauthorized = (message = 'A valid bearer token is required.'): ServiceError =>
  new ServiceError(401, 'invalid_token', message);

export const paymentRequired = (code: string, message: string): ServiceError =>
  new ServiceError(402, code, message);

export const forbidden = (code: string, message: string): ServiceError =>
  new ServiceError(403, code, message);

/** Unknown IDs and objects the caller may not see look the same: existence is never revealed. */
export const notFound = (what = 'resource'): ServiceError =>
  new ServiceError(404, 'not_found', `The ${what} does not exist or is not visible to you.`);

export const conflict = (code: string, message: string): ServiceError =>
  new ServiceError(409, code, message);

export const unprocessable = (code: string, message: string): ServiceError =>
  new ServiceError(422, code, message);

export const tooManyRequests = (code: string, message: string, retryAfterSeconds: number): ServiceError =>
  new ServiceError(429, code, message, undefined, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

/** A short, single-line description of anything thrown, for a log line (never a stack). */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The stack of an unexpected fault (a bug to find), else its description, for an error log line. */
export function describeFault(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
