import { Type } from 'typebox';
import type { ProtectedRouteContext } from './route-context.js';
import { Uuid, protectedErrors } from '../schemas/common.js';
import { OwnEKeyListSchema } from '../schemas/own-ekey.js';

/** GET /users/{user_id}/ekeys: one's own eKeys and when each works (DESIGN §7; oneself only). */
export function registerUserEKeyRoutes({ app, services, callerOf }: ProtectedRouteContext): void {
  app.get(
    '/users/:user_id/ekeys',
    {
      schema: {
        tags: ['ekeys'],
        summary: 'Your own eKeys with their lock and usability: usable now, why not, when next (oneself only; anyone else 404)',
        params: Type.Object({ user_id: Uuid }),
        response: { 200: OwnEKeyListSchema, ...protectedErrors },
      },
    },
    (request) => ({ ekeys: services.ekeys.listOwn(callerOf(request).userId, request.params.user_id) }),
  );
}
