import { emptyResponse } from '../openapi-responses.js';
import { Type } from 'typebox';
import { protectedErrors } from '../schemas/common.js';
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
        summary: 'Change your password; every other session of yours ends',
        description:
          'Checks `current_password` (400 `wrong_password` when it is not correct), sets `new_password` (400 `validation_failed` under 8 characters), ' +
          'and revokes every token of the caller except those of the session making the request. 204 on success.',
        body: ChangePasswordSchema,
        response: { 204: emptyResponse('Changed; every other session of the user ended'), ...protectedErrors },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      await services.passwords.change(caller, request.body.current_password, request.body.new_password);
      return reply.status(204).send();
    },
  );
}
