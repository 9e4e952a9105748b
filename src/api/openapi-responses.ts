import type { RouteOptions } from 'fastify';

/**
 * Every status a route can send, with its media type, written into the route's response schema as
 * the route is added — so the OpenAPI document (generated from those schemas) lists them all and
 * cannot drift from the cross-cutting rules that send them (docs/api.md "OpenAPI"): 421 for a Host
 * that is not ours, 406 for JSON routes, 400/413/415 for routes with a body, 401 behind the bearer
 * check, 429 where a rate limit applies. Error bodies are `application/problem+json`, except the
 * OAuth token and revocation endpoints (RFC 6749 §5.2 `application/json`) and the HTML pages.
 */

const PROBLEM = 'application/problem+json';
const HTML = 'text/html';

const DESCRIPTIONS: Record<string, string> = {
  302: 'Redirect (see Location)',
  303: 'See Other (see Location)',
  400: 'Malformed request',
  401: 'Missing, invalid or expired access token',
  402: "The sender's eKey quota is used up",
  403: 'Not permitted',
  404: 'Not found, or not visible to the caller',
  406: 'The Accept header excludes the media type of this answer',
  409: 'Conflict with the current state',
  410: 'Gone',
  413: 'The body is larger than the limit (`body_too_large`)',
  415: 'The body is not JSON (`unsupported_media_type`)',
  421: 'A Host this service does not answer (docs/remote-access.md)',
  422: 'The sender may no longer send eKeys',
  429: 'Too many requests; retry after Retry-After seconds',
  503: 'Unavailable for now (too many open connections, or the storage failed); retry after Retry-After seconds',
};

type ResponseSchema = Record<string, unknown>;

/** How a route answers errors. */
type ErrorStyle = 'problem' | 'oauth' | 'html';

const isContentMap = (value: unknown): value is { content: Record<string, unknown> } =>
  typeof value === 'object' && value !== null && 'content' in value;

function errorResponse(style: ErrorStyle, status: string, schema: unknown): ResponseSchema {
  const description = DESCRIPTIONS[status] ?? 'Error';
  if (style === 'html') return { description, content: { [HTML]: { schema: { type: 'string' } } } };
  return { description, content: { [style === 'oauth' ? 'application/json' : PROBLEM]: { schema } } };
}

/** An HTML page answer, for a route's own declarations. */
export const htmlResponse = (description: string): ResponseSchema => ({ description, content: { [HTML]: { schema: { type: 'string' } } } });

/** A redirect answer (no body) with its Location. */
export const redirectResponse = (description: string): ResponseSchema => ({
  type: 'null',
  description,
  headers: { location: { type: 'string', description: 'Where to go next' } },
});

/** An answer without a body. */
export const emptyResponse = (description: string): ResponseSchema => ({ type: 'null', description });

/** Adds what the server's cross-cutting rules send to a route's response schema (an `onRoute` hook). */
export function documentResponses(route: RouteOptions): void {
  const schema = route.schema as (Record<string, unknown> & { response?: Record<string, unknown> }) | undefined;
  if (schema === undefined || schema.hide === true) return;
  const produces = (route.config as { produces?: string } | undefined)?.produces ?? 'json';
  const html = produces === 'html';
  const url = route.url;
  const style: ErrorStyle = html ? 'html' : url.startsWith('/oauth/') ? 'oauth' : 'problem';
  const response: Record<string, unknown> = { ...schema.response };
  // The OAuth endpoints' error body is the one they declare (RFC 6749 §5.2); everyone else's is Problem.
  const declaredError = Object.entries(response).find(([status, value]) => Number(status) >= 400 && !isContentMap(value))?.[1];
  const problemRef = style === 'oauth' && declaredError !== undefined ? declaredError : { $ref: 'Problem' };

  for (const [status, value] of Object.entries(response)) {
    if (Number(status) >= 400 && !isContentMap(value)) response[status] = errorResponse(style, status, value);
  }
  const add = (status: number, errorStyle: ErrorStyle = style): void => {
    response[String(status)] ??= errorResponse(errorStyle, String(status), problemRef);
  };
  // The Host check runs before the route's scope: its answers are problem+json or a page.
  add(421, html ? 'html' : 'problem');
  if (produces === 'json' || produces === 'event-stream') add(406);
  if (schema.body !== undefined) {
    add(400);
    add(413);
    // The OAuth scope answers a body it cannot read as invalid_request (400).
    if (style === 'problem') add(415);
  }
  if (schema.security === undefined) add(401);
  const config = route.config as { rateLimit?: unknown } | undefined;
  if (config?.rateLimit !== undefined) add(429);
  // Past the connection cap (docs/design.md §9b), or when the storage fails, any route answers 503.
  add(503);
  schema.response = response;
}
