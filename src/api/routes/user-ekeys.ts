import { Type } from 'typebox';
import type { ProtectedRouteContext } from './route-context.js';
import { Uuid, protectedErrors } from '../schemas/common.js';
import { OwnEKeyListSchema } from '../schemas/own-ekey.js';

const HolderListSchema = Type.Object(
  {
    holders: Type.Array(
      Type.Object(
        { user_id: Type.String({ format: 'uuid' }), name: Type.String(), email: Type.String({ description: 'The address the eKey was sent to' }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/**
 * GET /users/{user_id}/ekeys: one's own eKeys and when each works (docs/design.md §7; oneself only).
 * GET /locks/{lock_id}/holders: who holds the lock's keys, with e-mail (owners and admins; the web
 * app names each key row by its recipient's address).
 */
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

  app.get(
    '/locks/:lock_id/holders',
    {
      schema: {
        tags: ['ekeys'],
        summary: "Who holds the lock's eKeys (any status), with name and e-mail (owners and admins; anyone else 404)",
        params: Type.Object({ lock_id: Uuid }),
        response: { 200: HolderListSchema, ...protectedErrors },
      },
    },
    (request) => ({ holders: services.ekeys.listHolders(callerOf(request).userId, request.params.lock_id) }),
  );
}
