import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fastifyFormbody from '@fastify/formbody';
import { renderErrorPage, renderLoginPage } from '../../auth/authorize-page.js';
import { SERVICE_PAGE_CSP } from '../../auth/html-page.js';
import { resolveClientCredentials } from '../../auth/client-authentication.js';
import { OAuthError } from '../../auth/oauth-error.js';
import type { AuthorizationCheck, AuthorizationOutcome } from '../../auth/oauth-service.js';
import { ServiceError } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import {
  AuthorizeFormSchema,
  AuthorizeQuerySchema,
  OAUTH_BODY_TYPES,
  OAuthErrorSchema,
  RevokeRequestSchema,
  TokenRequestSchema,
  TokenResponseSchema,
} from '../schemas/oauth.js';
import { dropOpenerPolicyOnPlainHttp } from '../web/opener-policy.js';
import { emptyResponse, htmlResponse, redirectResponse } from '../openapi-responses.js';
import type { RouteContext } from './route-context.js';

const HTML = 'text/html; charset=utf-8';

/** What any error in the OAuth scope becomes: an OAuthError with a safe description. */
function toOAuthError(error: Error): OAuthError | undefined {
  if (error instanceof OAuthError) return error;
  if (error instanceof ServiceError) {
    // 406 from content negotiation, 429 from the rate limiter.
    return new OAuthError(error.status === 429 ? 'rate_limited' : 'invalid_request', error.message, error.status, error.headers ?? {});
  }
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation) {
    const issue = fastifyError.validation[0];
    const params: Record<string, unknown> = issue?.params ?? {};
    const field = typeof params.missingProperty === 'string' ? params.missingProperty : (issue?.instancePath.replace(/^\//, '') ?? '');
    const problem = typeof params.missingProperty === 'string' ? 'is required' : (issue?.message ?? 'is invalid');
    return new OAuthError('invalid_request', `${field || fastifyError.validationContext || 'request'} ${problem}.`);
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Malformed JSON, an unsupported Content-Type, a bad Content-Length…: RFC 6749 §5.2 invalid_request.
    return new OAuthError('invalid_request', 'The request body could not be read (send JSON or application/x-www-form-urlencoded).', status === 413 ? 413 : 400);
  }
  return undefined;
}

/** RFC 6749 §5.2 JSON errors for the token/revocation endpoints; HTML pages for the authorization step. */
function createOAuthErrorHandler(logger: Logger) {
  return (error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const html = request.routeOptions.config.produces === 'html';
    let oauthError = toOAuthError(error);
    if (!oauthError) {
      logger.error(`request ${request.id} ${request.method} ${request.routeOptions.url ?? ''}: ${error.stack ?? error.message}`);
      oauthError = new OAuthError('server_error', 'An unexpected error occurred. It has been logged.', 500);
    }
    void reply.status(oauthError.status).headers(oauthError.headers);
    if (html) {
      const title = oauthError.status === 429 ? 'Too many attempts' : oauthError.status >= 500 ? 'Something went wrong' : 'Invalid request';
      return reply.type(HTML).send(renderErrorPage(title, oauthError.description));
    }
    return reply.type('application/json; charset=utf-8').send({ error: oauthError.error, error_description: oauthError.description });
  };
}

/** Answers an authorization-step decision: error page, redirect, or (for `valid`) nothing yet. */
function answerCheck(reply: FastifyReply, check: Exclude<AuthorizationCheck | AuthorizationOutcome, { kind: 'valid' | 'login-failed' }>): FastifyReply {
  if (check.kind === 'error-page') return reply.status(400).type(HTML).send(renderErrorPage(check.title, check.message));
  return reply.redirect(check.location, 302);
}

/** The origin the request arrived on (scheme and Host), for origin-relative redirect URIs. */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

const oauthErrors = { 400: OAuthErrorSchema, 401: OAuthErrorSchema, 429: OAuthErrorSchema } as const;

/**
 * The OAuth 2.0 endpoints: authorization step (HTML), token, revocation. Registered in their own
 * scope: form bodies, RFC 6749 error bodies and a per-IP rate limit apply here only.
 */
export async function registerOAuthRoutes({ app, services, logger }: RouteContext, rateLimitPerMinute: number): Promise<void> {
  await app.register(fastifyFormbody);
  app.setErrorHandler(createOAuthErrorHandler(logger));
  // RFC 6749 §5.1: token responses must not be cached; neither should a login page.
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    // The sign-in page and its error pages wear the web app's stylesheet and page script (html-page.ts).
    if (request.routeOptions.config.produces === 'html') void reply.header('content-security-policy', SERVICE_PAGE_CSP);
    dropOpenerPolicyOnPlainHttp(request, reply);
  });
  const rateLimit = { max: rateLimitPerMinute, timeWindow: 60_000 };
  const { oauth } = services;

  app.get(
    '/oauth/authorize',
    {
      config: { produces: 'html', rateLimit },
      schema: {
        tags: ['oauth'],
        summary: 'Authorization step: the sign-in page (HTML)',
        description:
          'Renders the sign-in form. An unknown client_id or unregistered redirect_uri gives an HTML error page (400), ' +
          'other parameter errors redirect to redirect_uri with `error` and `state`.',
        security: [],
        querystring: AuthorizeQuerySchema,
        produces: ['text/html'],
        response: {
          200: htmlResponse('The sign-in page'),
          302: redirectResponse('A parameter error, to redirect_uri with `error`, `state` and `iss`'),
          400: htmlResponse('Unknown client_id or unregistered redirect_uri: an error page'),
        },
      },
    },
    (request, reply) => {
      const check = oauth.checkAuthorizationRequest(request.query, requestOrigin(request));
      if (check.kind !== 'valid') return answerCheck(reply, check);
      return reply.type(HTML).send(renderLoginPage({ clientName: check.request.client.name, params: check.request.params }));
    },
  );

  app.post(
    '/oauth/authorize',
    {
      config: { produces: 'html', rateLimit },
      schema: {
        tags: ['oauth'],
        summary: 'Authorization step: sign in and receive a code',
        description:
          'On success answers 302 to `<redirect_uri>?code=…&state=…`; a wrong e-mail or password shows the form again (401) and issues no code.',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        produces: ['text/html'],
        body: AuthorizeFormSchema,
        response: {
          302: redirectResponse('Signed in: to redirect_uri with `code`, `state` and `iss` (or an error redirect)'),
          400: htmlResponse('Unknown client_id or unregistered redirect_uri: an error page'),
          401: htmlResponse('Wrong e-mail or password: the form again, with the error'),
        },
      },
    },
    async (request, reply) => {
      const { email, password, ...params } = request.body;
      const outcome = await oauth.authorize(params, email, password, requestOrigin(request));
      if (outcome.kind !== 'login-failed') return answerCheck(reply, outcome);
      const page = renderLoginPage({
        clientName: outcome.request.client.name,
        params: outcome.request.params,
        error: outcome.message,
        ...(email === undefined ? {} : { email }),
      });
      return reply.status(401).type(HTML).send(page);
    },
  );

  app.post(
    '/oauth/token',
    {
      config: { rateLimit },
      schema: {
        tags: ['oauth'],
        summary: 'Exchange an authorization code or a refresh token for tokens',
        description:
          'Client authentication: `client_id` + `client_secret` in the body, or HTTP Basic. Refresh tokens rotate on every use; ' +
          'presenting a used one revokes its whole family.',
        security: [],
        consumes: OAUTH_BODY_TYPES,
        body: TokenRequestSchema,
        response: { 200: TokenResponseSchema, ...oauthErrors },
      },
    },
    (request) => {
      const { body } = request;
      const credentials = resolveClientCredentials({
        authorization: request.headers.authorization,
        clientId: body.client_id,
        clientSecret: body.client_secret,
      });
      return oauth.token({
        grantType: body.grant_type,
        credentials,
        code: body.code,
        redirectUri: body.redirect_uri,
        codeVerifier: body.code_verifier,
        refreshToken: body.refresh_token,
      });
    },
  );

  app.post(
    '/oauth/revoke',
    {
      config: { rateLimit },
      schema: {
        tags: ['oauth'],
        summary: 'Revoke an access or refresh token (RFC 7009)',
        description: 'Answers 200 for unknown tokens and tokens of another client too. Revoking a refresh token revokes its whole family.',
        security: [],
        consumes: OAUTH_BODY_TYPES,
        body: RevokeRequestSchema,
        response: { 200: emptyResponse('Revoked (or nothing to revoke); empty body'), ...oauthErrors },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const credentials = resolveClientCredentials({
        authorization: request.headers.authorization,
        clientId: body.client_id,
        clientSecret: body.client_secret,
      });
      oauth.revoke({ credentials, token: body.token, tokenTypeHint: body.token_type_hint });
      return reply.status(200).send();
    },
  );
}
