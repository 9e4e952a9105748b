import { htmlResponse } from '../openapi-responses.js';
import fastifyFormbody from '@fastify/formbody';
import { Type } from 'typebox';
import {
  renderForgotPage,
  renderForgotSentPage,
  renderPasswordErrorPage,
  renderResetDonePage,
  renderResetPage,
} from '../../auth/password-pages.js';
import { ServiceError } from '../../domain/errors.js';
import { SERVICE_PAGE_CSP } from '../../auth/html-page.js';
import { createHtmlErrorHandler } from '../problem.js';
import { dropOpenerPolicyOnPlainHttp } from '../web/opener-policy.js';
import type { RouteContext } from './route-context.js';

const HTML = 'text/html; charset=utf-8';
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200, description: 'The token from the reset link' }) });

/**
 * "Forgot your password?" (HTML, public; docs/design.md §9b): ask for a link, then choose a new
 * password through it. In its own scope: form bodies and HTML error pages apply here only.
 */
export async function registerPasswordPages({ app, services, logger }: RouteContext): Promise<void> {
  await app.register(fastifyFormbody);
  app.setErrorHandler(createHtmlErrorHandler(logger, renderPasswordErrorPage));
  app.addHook('onRequest', async (request, reply) => {
    // A reset link is a secret: never cached, never sent on in a Referer. The pages wear the app's
    // stylesheet and page script: the service pages' policy, as on the sign-in page (issue #32, finding 11).
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('content-security-policy', SERVICE_PAGE_CSP);
    dropOpenerPolicyOnPlainHttp(request, reply);
  });
  const rateLimit = { max: 10, timeWindow: 60_000 };
  const { passwords } = services;

  app.get(
    '/password/forgot',
    {
      config: { produces: 'html', rateLimit },
      schema: {
        tags: ['password'],
        summary: '"Forgot your password?" page (HTML)',
        security: [],
        produces: ['text/html'],
        response: { 200: htmlResponse('The form, or how to reach the owner when no SMTP is configured') },
      },
    },
    (_request, reply) => reply.type(HTML).send(renderForgotPage(passwords.canMailResetLinks)),
  );

  app.post(
    '/password/forgot',
    {
      config: { produces: 'html', rateLimit },
      schema: {
        tags: ['password'],
        summary: 'Mail a single-use link (30 minutes) to choose a new password',
        description: 'Only with SMTP configured. The answer is the same whether or not the address has an account.',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        produces: ['text/html'],
        body: Type.Object({ email: Type.Optional(Type.String({ maxLength: 254 })) }),
        response: {
          200: htmlResponse('The same answer whether or not the address has an account'),
          400: htmlResponse('No address entered'),
        },
      },
    },
    (request, reply) => {
      if (!passwords.canMailResetLinks) return reply.type(HTML).send(renderForgotPage(false));
      const email = (request.body.email ?? '').trim();
      if (email === '') return reply.status(400).type(HTML).send(renderForgotPage(true, 'Enter the e-mail address of your account.'));
      passwords.requestReset(email);
      return reply.type(HTML).send(renderForgotSentPage());
    },
  );

  app.get(
    '/password/reset/:token',
    {
      config: { produces: 'html', rateLimit },
      schema: {
        tags: ['password'],
        summary: 'Choose a new password through a reset link (HTML)',
        security: [],
        params: TokenParams,
        produces: ['text/html'],
        response: {
          200: htmlResponse('The form for the new password'),
          404: htmlResponse('No such link'),
          410: htmlResponse('The link was used, replaced by a newer one, or expired'),
        },
      },
    },
    (request, reply) => {
      const state = passwords.describeReset(request.params.token);
      if (state === 'open') return reply.type(HTML).send(renderResetPage());
      // The same messages as a POST would give.
      return reply
        .status(state === 'unknown' ? 404 : 410)
        .type(HTML)
        .send(
          renderPasswordErrorPage(
            {
              status: state === 'unknown' ? 404 : 410,
              detail:
                state === 'used'
                  ? 'This link no longer works: it has been used, or a newer one was sent. Ask for a new one if you still need it.'
                  : state === 'expired'
                    ? 'This link has expired (links work for 30 minutes). Ask for a new one.'
                    : 'This link is not valid. Ask for a new one.',
            },
            true,
            request.url,
          ),
        );
    },
  );

  app.post(
    '/password/reset/:token',
    {
      config: { produces: 'html', rateLimit },
      schema: {
        tags: ['password'],
        summary: 'Set the new password of a reset link (once); every session of the user ends',
        security: [],
        params: TokenParams,
        consumes: ['application/x-www-form-urlencoded'],
        produces: ['text/html'],
        body: Type.Object({ password: Type.Optional(Type.String()) }),
        response: {
          200: htmlResponse('The password is changed'),
          400: htmlResponse('The password is too short'),
          404: htmlResponse('No such link'),
          410: htmlResponse('The link was used, replaced by a newer one, or expired'),
        },
      },
    },
    async (request, reply) => {
      try {
        const done = await passwords.completeReset(request.params.token, request.body.password ?? '');
        return await reply.type(HTML).send(renderResetDonePage(done.email));
      } catch (error) {
        if (error instanceof ServiceError && error.status === 400) {
          return await reply.status(400).type(HTML).send(renderResetPage('Choose a password of at least 8 characters.'));
        }
        throw error;
      }
    },
  );
}
