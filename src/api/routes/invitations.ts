import type { FastifyReply, FastifyRequest } from 'fastify';
import fastifyFormbody from '@fastify/formbody';
import { Type } from 'typebox';
import { escapeHtml, htmlPage, messagePage } from '../../auth/html-page.js';
import { ServiceError } from '../../domain/errors.js';
import type { FieldError } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import { WEB_APP_CLIENT_ID } from '../../auth/web-app-client.js';
import { requestOrigin } from './oauth.js';
import { dropOpenerPolicyOnPlainHttp } from '../web/opener-policy.js';
import type { RouteContext } from './route-context.js';

const HTML = 'text/html; charset=utf-8';

/** Authorization-request parameters an invitation link may carry, to continue to sign-in afterwards. */
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method'] as const;



interface SignUpFormOptions {
  email: string;
  locks: string[];
  /** The query string to post back with (keeps authorization parameters). */
  query: string;
  name?: string;
  errors?: FieldError[];
}

/**
 * The sign-up page may load one script of ours: the web app's `invite.js`, which — when the link
 * carries no authorization request — adds the web app's (with a fresh PKCE challenge), so that
 * signing up ends signed in, in the app (DESIGN §7). Without JavaScript the form works as before.
 */
const SIGN_UP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const INVITE_SCRIPT = '../app/invite.js';

function signUpPage(options: SignUpFormOptions): string {
  const lockList = options.locks.length === 0 ? '' : ` for ${options.locks.map((name) => `<strong>${escapeHtml(name)}</strong>`).join(', ')}`;
  const errors =
    options.errors === undefined || options.errors.length === 0
      ? ''
      : `<div class="error" role="alert" id="signup-error"><ul>${options.errors
          .map((error) => `<li>${escapeHtml(`${error.field.replace(/^\//, '')} ${error.message}`)}</li>`)
          .join('')}</ul></div>\n`;
  const described = errors === '' ? '' : ' aria-describedby="signup-error"';
  return htmlPage(
    'Accept your eKey',
    `<h1>Accept your eKey</h1>
<p>You have been sent an eKey${lockList}. Create your account for <strong>${escapeHtml(options.email)}</strong> to use it.</p>
${errors}<form method="post" action="${escapeHtml(options.query)}">
  <label for="name">Your name</label>
  <input id="name" name="name" type="text" autocomplete="name" maxlength="100" required autofocus value="${escapeHtml(options.name ?? '')}"${described}>
  <label for="password">Choose a password (at least 8 characters)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required${described}>
  <button type="submit">Create account and accept</button>
</form>`,
    INVITE_SCRIPT,
  );
}

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
 * account and accepts the pending eKeys (DESIGN §3 eKeys). Registered in its own scope: form bodies
 * and HTML error pages apply here only.
 */
export async function registerInvitationRoutes({ app, services, logger }: RouteContext): Promise<void> {
  await app.register(fastifyFormbody);
  app.setErrorHandler(createHtmlErrorHandler(logger));
  app.addHook('onRequest', async (request, reply) => {
    // The page is reached through a secret link: never cache it, never leak it in a Referer.
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
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
      },
    },
    (request, reply) => {
      const state = services.invitations.describe(request.params.token);
      switch (state.state) {
        case 'open':
          return reply
            .header('content-security-policy', SIGN_UP_CSP)
            .type(HTML)
            .send(signUpPage({ email: state.email, locks: state.locks, query: queryOf(request) }));
        case 'accepted':
          return reply
            .type(HTML)
            .send(messagePage('Invitation already accepted', `Your account exists: sign in with ${state.email} in your app.`));
        case 'expired':
          return reply.status(410).type(HTML).send(messagePage('Invitation expired', 'Ask for the eKey to be sent again.'));
        case 'unknown':
          return reply.status(404).type(HTML).send(messagePage('Invitation not found', 'This invitation link is not valid.'));
      }
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
        const keys = result.acceptedKeys === 1 ? 'Your eKey is' : `Your ${result.acceptedKeys} eKeys are`;
        return await reply
          .type(HTML)
          .send(messagePage('You are all set', `${keys} ready. Sign in with ${result.email} and your new password in your app.`));
      } catch (error) {
        if (!(error instanceof ServiceError) || error.status !== 400) throw error;
        const state = services.invitations.describe(token);
        if (state.state !== 'open') throw error;
        const form = signUpPage({
          email: state.email,
          locks: state.locks,
          query: queryOf(request),
          ...(request.body.name === undefined ? {} : { name: request.body.name }),
          errors: error.errors ?? [],
        });
        return await reply.status(400).header('content-security-policy', SIGN_UP_CSP).type(HTML).send(form);
      }
    },
  );
}

/** Every error in the invitation scope becomes an HTML page; 5xx details stay in the log. */
function createHtmlErrorHandler(logger: Logger) {
  return (error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    let status = 500;
    let title = 'Something went wrong';
    let message = 'An unexpected error occurred. It has been logged.';
    if (error instanceof ServiceError) {
      status = error.status;
      title =
        status === 410 ? 'Invitation expired' : status === 404 ? 'Invitation not found' : status === 429 ? 'Too many attempts' : 'Cannot accept the invitation';
      message = error.message;
      if (error.headers) void reply.headers(error.headers);
    } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      title = status === 429 ? 'Too many attempts' : 'Invalid request';
      message = status === 429 ? 'Please wait a minute and try again.' : 'The form could not be read; please try again.';
    } else {
      logger.error(`request ${request.id} ${request.method} /invitations: ${error.stack ?? error.message}`);
    }
    return reply.status(status).type(HTML).send(messagePage(title, message));
  };
}
