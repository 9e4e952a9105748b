import { Type } from 'typebox';
import type { ProtectedRouteContext } from './route-context.js';
import { Uuid, protectedErrors } from '../schemas/common.js';

/** GET /me, GET /users/{user_id}. */
export function registerUserRoutes({ app, services, callerOf }: ProtectedRouteContext): void {
  app.get(
    '/me',
    {
      schema: {
        tags: ['users'],
        summary: 'The current user',
        response: { 200: Type.Ref('User'), ...protectedErrors },
      },
    },
    (request) => services.users.me(callerOf(request).userId),
  );

  app.get(
    '/users/:user_id',
    {
      schema: {
        tags: ['users'],
        summary: 'A user by ID (oneself, or a holder of keys on a lock you own or administer)',
        params: Type.Object({ user_id: Uuid }),
        response: { 200: Type.Ref('User'), ...protectedErrors },
      },
    },
    (request) => services.users.get(callerOf(request).userId, request.params.user_id),
  );
}
