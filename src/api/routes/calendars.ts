import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ProtectedRouteContext } from './route-context.js';
import { protectedErrors } from '../schemas/common.js';
import { CalendarListSchema, CalendarParamsSchema, CreateCalendarBodySchema, UpdateCalendarBodySchema } from '../schemas/calendar.js';

const calendarErrors = { ...protectedErrors, 403: Type.Ref('Problem') } as const;

/**
 * Rental calendars (docs/design.md §12): POST/GET /calendars, GET/PUT/DELETE /calendars/{id},
 * POST /calendars/{id}/refresh — for the owners of the calendar's locks; anyone else gets 404.
 */
export function registerCalendarRoutes(context: ProtectedRouteContext): void {
  const { app, services } = context;

  app.post(
    '/calendars',
    {
      schema: {
        tags: ['calendars'],
        summary: 'Add a rental calendar: its stays become door codes (owners of the locks)',
        description:
          'Reads the feed once before answering (at most 10 s), so the answer lists its stays; a feed that cannot be read gives `state: failing` with `last_error`. ' +
          '404 for a lock the caller cannot see, 403 for one they do not own, 400 `lock_has_no_keypad` for door codes on a lock without a keypad.',
        body: CreateCalendarBodySchema,
        response: { 201: Type.Ref('Calendar'), ...calendarErrors, 415: Type.Ref('Problem') },
      },
    },
    async (request, reply) => reply.status(201).send(await services.calendars.create(context.callerOf(request).userId, request.body)),
  );

  app.get(
    '/calendars',
    {
      schema: {
        tags: ['calendars'],
        summary: 'The rental calendars of the locks the caller owns',
        response: { 200: CalendarListSchema, ...protectedErrors },
      },
    },
    (request) => ({ calendars: services.calendars.list(context.callerOf(request).userId) }),
  );

  app.get(
    '/calendars/:calendar_id',
    {
      schema: {
        tags: ['calendars'],
        summary: 'A rental calendar with its stays and their door codes',
        params: CalendarParamsSchema,
        response: { 200: Type.Ref('Calendar'), ...protectedErrors },
      },
    },
    (request) => services.calendars.get(context.callerOf(request).userId, request.params.calendar_id),
  );

  app.put(
    '/calendars/:calendar_id',
    {
      schema: {
        tags: ['calendars'],
        summary: 'Change a rental calendar',
        description:
          'null resets check_in, check_out and door_code to their defaults; an absent property is unchanged; a body `id` is ignored. ' +
          'New times rewrite every stay\'s window on the locks (the codes stay the same); a new link is read before answering.',
        params: CalendarParamsSchema,
        body: UpdateCalendarBodySchema,
        response: { 200: Type.Ref('Calendar'), ...calendarErrors, 415: Type.Ref('Problem') },
      },
    },
    async (request) => {
      const { id: _ignored, ...patch } = request.body;
      return services.calendars.update(context.callerOf(request).userId, request.params.calendar_id, patch);
    },
  );

  app.delete(
    '/calendars/:calendar_id',
    {
      schema: {
        tags: ['calendars'],
        summary: 'Remove a rental calendar and every door code it made',
        description: 'The codes are taken off the locks as each lock is reached (retried until it confirms).',
        params: CalendarParamsSchema,
        response: { 204: Type.Null({ description: 'Removed' }), ...protectedErrors },
      },
    },
    async (request, reply) => {
      services.calendars.remove(context.callerOf(request).userId, request.params.calendar_id);
      // No body at all (a 204 carries none; the typed reply would serialise `null`).
      return (reply as FastifyReply).status(204).send();
    },
  );

  app.post(
    '/calendars/:calendar_id/refresh',
    {
      schema: {
        tags: ['calendars'],
        summary: 'Read a rental calendar\'s feed now',
        description: 'Answers once the refresh is done (at most 10 s for the feed). No body, or a JSON one (ignored).',
        params: CalendarParamsSchema,
        response: { 200: Type.Ref('Calendar'), ...protectedErrors, 415: Type.Ref('Problem') },
      },
    },
    (request) => services.calendars.refresh(context.callerOf(request).userId, request.params.calendar_id),
  );
}
