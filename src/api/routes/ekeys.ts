import { Type } from 'typebox';
import type { ProtectedRouteContext } from './route-context.js';
import { protectedErrors } from '../schemas/common.js';
import { EKeyParamsSchema, RemoveEKeyQuerySchema, SendEKeyBodySchema, UpdateEKeyBodySchema } from '../schemas/ekey.js';

/** The error answers of the eKey routes beyond the usual ones, for the OpenAPI document. */
const ekeyErrors = { ...protectedErrors, 403: Type.Ref('Problem'), 409: Type.Ref('Problem') } as const;

/**
 * POST /ekey, GET/PUT/DELETE /ekey/{ekey_id}, each also under the plural `/ekeys` the spec's
 * general convention uses (docs/design.md §3 Paths and conventions). Translation only: the eKey service
 * decides everything.
 */
export function registerEKeyRoutes(context: ProtectedRouteContext): void {
  const { app, services } = context;
  for (const base of ['/ekey', '/ekeys']) {
    const alias = base === '/ekeys' ? ' (alias)' : '';

    app.post(
      base,
      {
        schema: {
          tags: ['ekeys'],
          summary: `Send an eKey${alias}`,
          description:
            'The send action. A known recipient gets an accepted key; an unknown e-mail address a pending key and an invitation.',
          body: SendEKeyBodySchema,
          response: {
            201: Type.Ref('EKey'),
            ...ekeyErrors,
            402: Type.Ref('Problem'),
            415: Type.Ref('Problem'),
            422: Type.Ref('Problem'),
          },
        },
      },
      async (request, reply) => {
        const key = services.ekeys.send(context.callerOf(request).userId, request.body);
        return reply.status(201).send(key);
      },
    );

    app.get(
      `${base}/:ekey_id`,
      {
        schema: {
          tags: ['ekeys'],
          summary: `An eKey by ID${alias}`,
          description: "Visible to the key's holder and to the lock's owners and admins; anyone else gets 404.",
          params: EKeyParamsSchema,
          response: { 200: Type.Ref('EKey'), ...protectedErrors },
        },
      },
      (request) => services.ekeys.get(context.callerOf(request).userId, request.params.ekey_id),
    );

    app.put(
      `${base}/:ekey_id`,
      {
        schema: {
          tags: ['ekeys'],
          summary: `Change an eKey${alias}`,
          description: 'null resets a property to its default, an absent property is unchanged, a body `id` is ignored.',
          params: EKeyParamsSchema,
          body: UpdateEKeyBodySchema,
          response: { 200: Type.Ref('EKey'), ...ekeyErrors, 415: Type.Ref('Problem') },
        },
      },
      (request) => {
        const { id: _ignored, ...patch } = request.body;
        return services.ekeys.update(context.callerOf(request).userId, request.params.ekey_id, patch);
      },
    );

    app.delete(
      `${base}/:ekey_id`,
      {
        schema: {
          tags: ['ekeys'],
          summary: `Revoke an eKey (or delete it with purge=true)${alias}`,
          description: 'Answers the revoked eKey. A guest-role holder deleting its own key gives it up (revoked and removed).',
          params: EKeyParamsSchema,
          querystring: RemoveEKeyQuerySchema,
          response: { 200: Type.Ref('EKey'), ...ekeyErrors },
        },
      },
      (request) =>
        services.ekeys.remove(context.callerOf(request).userId, request.params.ekey_id, { purge: request.query.purge === true }),
    );
  }
}
