import { Type } from 'typebox';
import { protectedErrors } from '../schemas/common.js';
import { TokenResponseSchema } from '../schemas/oauth.js';
import type { ProtectedRouteContext } from './route-context.js';

const ChangePasswordSchema = Type.Object(
  {
    current_password: Type.String({ maxLength: 1024, description: 'The password in use now' }),
    new_password: Type.String({ minLength: 1, maxLength: 1024, description: 'At least 8 characters' }),
  },
  { additionalProperties: false, description: 'Change of the caller’s own password' },
);

/** PUT /me/password (docs/design.md §9b). */
export function registerPasswordRoutes({ app, services, callerOf }: ProtectedRouteContext): void {
  app.put(
    '/me/password',
    {
      config: { rateLimit: { max: 10, timeWindow: 60_000 } },
      schema: {
        tags: ['users'],
        summary: 'Change your password; every session of yours ends and this one continues with new tokens',
        description:
          'Checks `current_password` (400 `wrong_password` when it is not correct; wrong ones count against the account\'s ' +
          'password attempts like failed sign-ins: 429 `too_many_password_attempts` once they are used up), sets `new_password` ' +
          '(400 `validation_failed` under 8 characters), and revokes every token of the caller — this session\'s too. ' +
          'The answer is a new session for the same client (a new token family): use its tokens from now on; the old refresh token is dead.',
        body: ChangePasswordSchema,
        response: { 200: TokenResponseSchema, ...protectedErrors },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const session = await services.passwords.change(caller, request.body.current_password, request.body.new_password);
      // RFC 6749 §5.1: an answer carrying tokens is never cached.
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').status(200).send(session);
    },
  );
}
