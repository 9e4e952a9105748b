import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type FieldError } from '../domain/errors.js';
import type { Logger } from '../logger.js';

/** RFC 9457 problem details, plus our stable `code` and per-field `errors`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: FieldError[];
  request_id?: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export const problemTypeUri = (code: string): string => `urn:ekey-locks:problem:${code}`;

export function buildProblem(status: number, code: string, detail: string, errors?: FieldError[]): Problem {
  const problem: Problem = {
    type: problemTypeUri(code),
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
  };
  if (errors && errors.length > 0) problem.errors = errors;
  return problem;
}

/** Fastify's own client-error codes, mapped to our stable codes. */
const FASTIFY_CODES: Record<string, { status: number; code: string; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    detail: 'Request bodies must be application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'malformed_request', detail: 'Content-Length does not match the body.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large', detail: 'The request body is too large.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_json', detail: 'The body is empty but declared as JSON.' },
  // Fastify's parser refuses valid JSON with prototype-poisoning keys through the same error.
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: 'malformed_json',
    detail: 'The body is not valid JSON, or uses a key refused for safety ("__proto__", or "constructor" holding "prototype").',
  },
};

/** Turns a Fastify validation error into per-field errors with JSON-pointer-like paths. */
function fieldErrors(error: FastifyError): FieldError[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((issue) => {
    const params = issue.params;
    const extra =
      typeof params.additionalProperty === 'string'
        ? `/${params.additionalProperty}`
        : typeof params.missingProperty === 'string'
          ? `/${params.missingProperty}`
          : '';
    const path = `${issue.instancePath}${extra}` || '/';
    const message =
      typeof params.additionalProperty === 'string'
        ? 'is not a known property'
        : (issue.message ?? 'is invalid');
    return { field: `${context}${path === '/' ? '' : path}`, message };
  });
}

/**
 * The one place where errors become HTTP answers: each error is classified once, here. Client
 * mistakes get a precise 4xx; a storage fault a 503; anything unexpected is logged with the
 * request id and becomes a bare 500 that leaks nothing. Headers the error carries (Retry-After)
 * are set on `reply`.
 */
export function problemOf(error: FastifyError | ServiceError | Error, request: FastifyRequest, reply: FastifyReply, logger: Logger): Problem {
  let problem: Problem;
  if (error instanceof ServiceError) {
    problem = { ...error.extensions, ...buildProblem(error.status, error.code, error.message, error.errors) };
    if (error.headers) void reply.headers(error.headers);
  } else if ('validation' in error && error.validation) {
    problem = buildProblem(400, 'validation_failed', 'The request is invalid.', fieldErrors(error));
  } else if ('code' in error && typeof error.code === 'string' && error.code in FASTIFY_CODES) {
    const known = FASTIFY_CODES[error.code];
    problem = known ? buildProblem(known.status, known.code, known.detail) : buildProblem(500, 'internal_error', 'Unexpected error.');
  } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    const status = error.statusCode;
    problem = buildProblem(status, status === 429 ? 'rate_limited' : 'bad_request', safeClientMessage(error));
  } else if (isStorageFault(error)) {
    // The disk, not the request: nothing was written (each change is one transaction); try later.
    logger.error(`request ${request.id} ${request.method} ${request.routeOptions.url ?? request.url}: storage: ${error.message}`);
    problem = buildProblem(503, 'storage_unavailable', 'The service cannot write its data right now; nothing was changed. Try again later.');
    void reply.header('retry-after', '30');
  } else {
    logger.error(`request ${request.id} ${request.method} ${request.routeOptions.url ?? request.url}: ${error.stack ?? error.message}`);
    problem = buildProblem(500, 'internal_error', 'An unexpected error occurred. It has been logged.');
  }
  problem.request_id = request.id;
  return problem;
}

/** The API's error handler: every error as RFC 9457 `application/problem+json`. */
export function createErrorHandler(logger: Logger) {
  return (error: FastifyError | ServiceError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const problem = problemOf(error, request, reply, logger);
    return reply.status(problem.status).type('application/problem+json').send(problem);
  };
}

/**
 * The error handler of a scope of HTML pages (the invitation sign-up): the same classification as
 * the API's, drawn as a page. `page` gets the problem and whether its detail is the service's own
 * message (a {@link ServiceError}) or a generic one about the request.
 */
export function createHtmlErrorHandler(logger: Logger, page: (problem: Problem, fromService: boolean, path: string) => string) {
  return (error: FastifyError | ServiceError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const problem = problemOf(error, request, reply, logger);
    // The path: a page's links are relative to where it is shown (src/auth/html-page.ts rootOf).
    return reply.status(problem.status).type('text/html; charset=utf-8').send(page(problem, error instanceof ServiceError, request.url));
  };
}

/** SQLite failures of the storage itself (read-only, full, I/O, locked), as opposed to our own bugs. */
const STORAGE_FAULTS = /^SQLITE_(READONLY|FULL|IOERR|BUSY|LOCKED|CANTOPEN|PERM|CORRUPT|NOTADB)/;

function isStorageFault(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return error.name === 'SqliteError' && typeof code === 'string' && STORAGE_FAULTS.test(code);
}

/** Fastify client errors carry safe messages; strip anything that looks like an internal path. */
function safeClientMessage(error: Error): string {
  const message = error.message.replace(/\s+at\s.*$/s, '');
  return message.length > 0 && message.length < 300 ? message : 'The request could not be processed.';
}
