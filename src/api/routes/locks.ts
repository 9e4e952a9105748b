import { Type } from 'typebox';
import type { ProtectedRouteContext } from './route-context.js';
import { Uuid, protectedErrors } from '../schemas/common.js';
import { EKeyListSchema } from '../schemas/ekey.js';
import { LockListSchema, OpenerSettingsSchema } from '../schemas/lock.js';

/**
 * GET /locks/{lock_id}/ekeys and GET /users/{user_id}/locks, with its singular alias
 * `/user/{user_id}/locks` (the spec's heading uses it).
 */
export function registerLockRoutes(context: ProtectedRouteContext): void {
  const { app, services } = context;
  app.get(
    '/locks/:lock_id/ekeys',
    {
      schema: {
        tags: ['ekeys'],
        summary: "The eKeys of a lock (owners and admins: all; other holders: their own)",
        params: Type.Object({ lock_id: Uuid }),
        response: { 200: EKeyListSchema, ...protectedErrors },
      },
    },
    (request) => ({ ekeys: services.ekeys.listForLock(context.callerOf(request).userId, request.params.lock_id) }),
  );

  app.put(
    '/locks/:lock_id/opener-settings',
    {
      schema: {
        tags: ['locks'],
        summary: "Cap a Nuki Opener's Continuous Mode (owners only)",
        description:
          'Continuous Mode makes every ring open the building door; with a cap the service switches it off that many minutes after it was ' +
          'switched on (by anyone, anywhere), retried until the Opener confirms. 403 `owner_only` for anyone but an owner of the lock; ' +
          '400 `lock_has_no_opener_modes` for a lock without the modes; 404 for a lock the caller cannot see.',
        params: Type.Object({ lock_id: Uuid }),
        body: OpenerSettingsSchema,
        response: { 200: OpenerSettingsSchema, ...protectedErrors, 403: Type.Ref('Problem') },
      },
    },
    (request) => services.locks.setOpenerSettings(context.callerOf(request).userId, request.params.lock_id, request.body),
  );

  for (const base of ['/users', '/user']) {
    app.get(
      `${base}/:user_id/locks`,
      {
        schema: {
          tags: ['locks'],
          summary: `The locks a user holds a usable eKey for (oneself only)${base === '/user' ? ' (alias)' : ''}`,
          params: Type.Object({ user_id: Uuid }),
          response: { 200: LockListSchema, ...protectedErrors },
        },
      },
      (request) => ({ locks: services.locks.listForUser(context.callerOf(request).userId, request.params.user_id) }),
    );
  }
}
