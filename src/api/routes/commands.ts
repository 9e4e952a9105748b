import { Type } from 'typebox';
import type { ProtectedRouteContext } from './route-context.js';
import { protectedErrors } from '../schemas/common.js';
import { CommandParamsSchema, CreateCommandBodySchema, LockParamsSchema, toLockCommandBody } from '../schemas/command.js';

/**
 * POST /locks/{lock_id}/commands and GET /locks/{lock_id}/commands/{command_id} (spec; docs/design.md §3
 * Commands). Translation only: the command engine decides everything.
 */
export function registerCommandRoutes(context: ProtectedRouteContext): void {
  const { app, services } = context;
  app.post(
    '/locks/:lock_id/commands',
    {
      schema: {
        tags: ['commands'],
        summary: 'Lock or unlock remotely',
        description:
          'Needs an eKey usable now (403 otherwise) and a lock the gateway can reach (400 `lock_unreachable` otherwise). ' +
          'The Nuki Opener\'s mode switches (`ring_to_open_on|off`, `continuous_mode_on|off`) need an owner or admin key ' +
          '(403 `mode_needs_admin` for other roles; a guest may still open the strike once with `unlock`); a mode switched on by a key ' +
          'that ends is switched off by the service. ' +
          'Answers 201 with status `processing`, or `created` while queued behind another command on the lock; 429 with ' +
          'Retry-After when the lock already has 8 unfinished commands (`command_queue_full`), or when a caller who is not ' +
          'an owner of the lock sent it more than 10 commands at once and then more than one every 6 s (`command_rate_limited`). ' +
          'With an `Idempotency-Key` header, a retry answers ' +
          '201 with the original command (header `Idempotent-Replayed: true`).',
        params: LockParamsSchema,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) }),
        body: CreateCommandBodySchema,
        response: {
          201: Type.Ref('LockCommand'),
          ...protectedErrors,
          403: Type.Ref('Problem'),
          415: Type.Ref('Problem'),
          422: Type.Ref('Problem'),
          429: Type.Ref('Problem'),
        },
      },
    },
    async (request, reply) => {
      const { command, replayed } = services.commands.submit({
        userId: context.callerOf(request).userId,
        lockId: request.params.lock_id,
        type: request.body.type,
        idempotencyKey: request.headers['idempotency-key'],
      });
      if (replayed) void reply.header('idempotent-replayed', 'true');
      return reply.status(201).send(toLockCommandBody(command));
    },
  );

  app.get(
    '/locks/:lock_id/commands/:command_id',
    {
      schema: {
        tags: ['commands'],
        summary: 'A command and its current status',
        description: "Visible to its requester and to the lock's owners and admins; anyone else gets 404. A request body is ignored.",
        params: CommandParamsSchema,
        response: { 200: Type.Ref('LockCommand'), ...protectedErrors },
      },
    },
    (request) => toLockCommandBody(services.commands.get(context.callerOf(request).userId, request.params.lock_id, request.params.command_id)),
  );
}
