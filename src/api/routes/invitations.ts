import type { FastifyRequest } from 'fastify';
import fastifyFormbody from '@fastify/formbody';
import { Type } from 'typebox';
import { SERVICE_PAGE_CSP } from '../../auth/html-page.js';
import {
  renderInvitationErrorPage,
  renderInvitationStatePage,
  renderSignUpPage,
  renderSignedUpPage,
} from '../../auth/invitation-pages.js';
import { ServiceError } from '../../domain/errors.js';
import { createHtmlErrorHandler } from '../problem.js';
import { WEB_APP_CLIENT_ID } from '../../auth/web-app-client.js';
import { requestOrigin } from './oauth.js';
import { dropOpenerPolicyOnPlainHttp } from '../web/opener-policy.js';
import type { RouteContext } from './route-context.js';
import { htmlResponse, redirectResponse } from '../openapi-responses.js';

const HTML = 'text/html; charset=utf-8';

/** Authorization-request parameters an invitation link may carry, to continue to sign-in afterwards. */
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method'] as const;

/** `?a=b…` of the request, or `?` alone (a form action of "" would be the page itself too, but explicit is clearer). */
function queryOf(request: FastifyRequest): string {
  const index = request.url.indexOf('?');
  return index === -1 ? '?' : request.url.slice(index);
}

/** Where to continue after sign-up: the authorization page, when the link carried its parameters. */
function continuation(query: Record<string, unknown>): string | undefined {
  if (typeof query.client_id !== 'string' || typeof query.response_type !== 'string') return undefined;
  const params = new URLSearchParams();
  for (const name of AUTHORIZE_PARAMS) {
    const value = query[name];
    if (typeof value === 'string') params.set(name, value);
  }
  // Relative to /invitations/{token}, so it also works behind a path prefix.
  return `../oauth/authorize?${params.toString()}`;
}

const TokenParams = Type.Object({ token: Type.String({ maxLength: 200, description: 'The invitation token from the link' }) });
const AuthorizeQuery = Type.Object(
  Object.fromEntries(AUTHORIZE_PARAMS.map((name) => [name, Type.Optional(Type.String())])),
  { description: 'Optional authorization request to continue with after sign-up' },
);
const SignUpForm = Type.Object(
  { name: Type.Optional(Type.String()), password: Type.Optional(Type.String()) },
  { description: 'Sign-up form (application/x-www-form-urlencoded)' },
);

/**
 * The sign-up page of an invitation link (HTML, public): GET shows the form, POST creates the
 * account and accepts the pending eKeys (docs/design.md §3 eKeys). Registered in its own scope: form bodies
 * and HTML error pages apply here only.
 */
export async function registerInvitationRoutes({ app, services, logger }: RouteContext): Promise<void> {
  await app.register(fastifyFormbody);
  app.setErrorHandler(createHtmlErrorHandler(logger, renderInvitationErrorPage));
  app.addHook('onRequest', async (request, reply) => {
    // The page is reached through a secret link: never cache it, never leak it in a Referer.
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('content-security-policy', SERVICE_PAGE_CSP);
    dropOpenerPolicyOnPlainHttp(request, reply);
  });
  const rateLimit = { max: 30, timeWindow: 60_000 };

  app.get(
    '/invitations/:token',
    {
      config: { produces: 'html', rateLimit },
      schema: {
        tags: ['invitations'],
        summary: 'Sign-up page of an eKey invitation link (HTML)',
        security: [],
        params: TokenParams,
        querystring: AuthorizeQuery,
        produces: ['text/html'],
        response: {
          200: htmlResponse('The sign-up form, or what became of a used or withdrawn invitation'),
          404: htmlResponse('No such invitation'),
          410: htmlResponse('The invitation expired'),
        },
      },
    },
    (request, reply) => {
      const state = services.invitations.describe(request.params.token);
      if (state.state === 'open') {
        return reply.type(HTML).send(renderSignUpPage({ email: state.email, inviter: state.inviter, keys: state.keys, query: queryOf(request) }));
      }
      const status = state.state === 'expired' || state.state === 'withdrawn' ? 410 : state.state === 'unknown' ? 404 : 200;
      return reply.status(status).type(HTML).send(renderInvitationStatePage(state));
    },
  );

  app.post(
    '/invitations/:token',
    {
      config: { produces: 'html', rateLimit },
      schema: {
        tags: ['invitations'],
        summary: 'Create the account of an invitation and accept its pending eKeys',
        description:
          'On success shows a confirmation page, or answers 303 to the authorization page when the link carried an authorization request.',
        security: [],
        params: TokenParams,
        querystring: AuthorizeQuery,
        consumes: ['application/x-www-form-urlencoded'],
        produces: ['text/html'],
        body: SignUpForm,
        response: {
          200: htmlResponse('Signed up: a confirmation page'),
          303: redirectResponse('Signed up: on to the authorization step (or the web app, signed in)'),
          400: htmlResponse('The form again, with what to correct'),
          404: htmlResponse('No such invitation'),
          409: htmlResponse('The invitation was already used or withdrawn'),
          410: htmlResponse('The invitation expired'),
        },
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      try {
        const result = await services.invitations.signUp(token, request.body);
        if (request.query.client_id?.toLowerCase() === WEB_APP_CLIENT_ID) {
          // The web app's request: the new user has just chosen a password — continue signed in.
          const outcome = services.oauth.authorizeSignedUp(request.query, result.userId, requestOrigin(request));
          if (outcome.kind === 'redirect') return await reply.redirect(outcome.location, 303);
        }
        const next = continuation(request.query);
        if (next !== undefined) return await reply.redirect(next, 303);
        return await reply.type(HTML).send(renderSignedUpPage(result.email, result.acceptedKeys));
      } catch (error) {
        if (!(error instanceof ServiceError) || error.status !== 400) throw error;
        const state = services.invitations.describe(token);
        if (state.state !== 'open') throw error;
        const form = renderSignUpPage({
          email: state.email,
          inviter: state.inviter,
          keys: state.keys,
          query: queryOf(request),
          ...(request.body.name === undefined ? {} : { name: request.body.name }),
          errors: error.errors ?? [],
        });
        return await reply.status(400).type(HTML).send(form);
      }
    },
  );
}
