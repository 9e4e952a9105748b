import type { OutgoingHttpHeaders } from 'node:http';
import { Type } from 'typebox';
import { ServiceError } from '../../domain/errors.js';
import { acceptsMediaType } from '../content-negotiation.js';
import { Uuid, protectedErrors } from '../schemas/common.js';
import { EventPageQuerySchema, LockEventPageSchema } from '../schemas/event.js';
import type { ProtectedRouteContext } from './route-context.js';

const LockParams = Type.Object({ lock_id: Uuid });

/** GET /locks/{lock_id}/events (history) and GET /locks/{lock_id}/events/stream (SSE). */
export function registerEventRoutes(context: ProtectedRouteContext): void {
  const { app, services } = context;
  app.get(
    '/locks/:lock_id/events',
    {
      schema: {
        tags: ['events'],
        summary: 'Lock events, newest first, with keyset pagination',
        description:
          'Owners and admins of the lock see every event; other holders of a usable eKey see only the events they performed. ' +
          'An unknown cursor is 400 `invalid_cursor`; a lock the caller holds no usable key for is 404.',
        params: LockParams,
        querystring: EventPageQuerySchema,
        response: { 200: LockEventPageSchema, ...protectedErrors },
      },
    },
    // The body arrives serialized (the page cache keeps it that way): a string with a JSON type is
    // sent as it is. Its shape is LockEventPageSchema, checked by the API tests and the contract.
    (request, reply) => reply.type('application/json; charset=utf-8').send(services.events.listJson(context.callerOf(request).userId, request.params.lock_id, request.query)),
  );

  app.get(
    '/locks/:lock_id/events/stream',
    {
      config: { produces: 'event-stream' },
      schema: {
        tags: ['events'],
        summary: 'Live lock events (Server-Sent Events)',
        description:
          'text/event-stream: one message per event, `id:` = event id, `data:` = LockEvent JSON; comment heartbeats; ' +
          '`Last-Event-ID` replays the visible events recorded after that one before going live. Same visibility as the history.',
        params: LockParams,
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String()) }),
        response: {
          200: { description: 'The stream: one message per event', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...protectedErrors,
          429: Type.Ref('Problem', { description: 'Too many open streams (`too_many_streams`); see Retry-After' }),
        },
      },
    },
    (request, reply) => {
      if (!acceptsMediaType(request.headers.accept, 'text/event-stream')) {
        throw new ServiceError(406, 'not_acceptable', 'The event stream answers text/event-stream only; send Accept: text/event-stream.');
      }
      const caller = context.callerOf(request);
      const audience = services.eventStreams.authorize(caller.userId, request.params.lock_id);
      const lastEventId = request.headers['last-event-id'];

      void reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      const stream = services.eventStreams.start(
        audience,
        {
          write: (chunk) => {
            if (!raw.writableEnded && !raw.destroyed) raw.write(chunk);
          },
          get pendingBytes() {
            return raw.writableLength;
          },
          end: () => {
            if (!raw.writableEnded) raw.end();
          },
        },
        typeof lastEventId === 'string' && lastEventId.trim() !== '' ? lastEventId.trim() : undefined,
        // The stream ends within 1 s of its token being revoked or expiring (docs/design.md §9b).
        { stillValid: () => services.authenticator.stillValid(caller) },
      );
      // The client went away (or the socket failed): release the listener and the heartbeat.
      raw.on('close', () => {
        stream.close();
      });
      raw.on('error', () => {
        stream.close();
      });
    },
  );
}
