import { Type } from 'typebox';

const clockTime = (description: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description, examples: ['16:00'] });

/** docs/design.md §12: a stay's door code on one lock (a door code object of §4c, with its lock). */
const BookingDoorCodeSchema = Type.Object(
  {
    lock_id: Type.String({ format: 'uuid', description: 'The lock that holds this code' }),
    code: Type.Union([Type.String({ pattern: '^[0-9]{4,12}$' }), Type.Null()], {
      description: "The code's digits by the rules of the lock's keypad, unique on the lock, the same for the stay's whole life (also when its dates move); null while removing and once removed",
    }),
    state: Type.Union(
      (['waiting', 'setting', 'set', 'failed', 'removing', 'removed'] as const).map((state) => Type.Literal(state)),
      {
        description:
          'waiting: the stay starts more than 30 days from now, nothing is on the lock yet; setting → set only after the lock confirmed (retried until it does); failed: see failure_reason; removing → removed only after the lock confirmed (the stay ended or was cancelled)',
      },
    ),
    enforced_by: Type.Union([Type.Literal('lock'), Type.Literal('service')], { description: 'lock: the lock itself holds the stay\'s date range (check-in to check-out)' }),
    failure_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed (keypad_full, refused_by_lock, link_lost, …); null in every other state' }),
    updated_at: Type.String({ format: 'date-time', description: 'When the state last changed (ISO 8601 UTC)' }),
  },
  { additionalProperties: false },
);

/** docs/design.md §12: a stay of a rental calendar. */
const BookingSchema = Type.Object(
  {
    uid: Type.String({ description: 'The event\'s UID in the feed (an occurrence of a recurring event: `UID#RECURRENCE-ID`)' }),
    summary: Type.String({ description: 'The event\'s title in the feed (e.g. "Reserved", "Reserved - Anna")' }),
    starts_at: Type.String({ format: 'date-time', description: 'Check-in, ISO 8601 UTC: an all-day stay\'s first day at the calendar\'s check_in time in the lock\'s zone (the first lock\'s), a timed stay\'s own start' }),
    ends_at: Type.String({ format: 'date-time', description: 'Check-out, ISO 8601 UTC: an all-day stay\'s last day at the calendar\'s check_out time, a timed stay\'s own end' }),
    state: Type.Union([Type.Literal('upcoming'), Type.Literal('active'), Type.Literal('ended'), Type.Literal('cancelled')], {
      description: 'upcoming (before check-in), active (between check-in and check-out), ended (after check-out), cancelled (gone from the feed before it ended)',
    }),
    door_codes: Type.Array(BookingDoorCodeSchema, { description: 'One per lock of the calendar that takes keypad codes (none while the calendar never had door codes; after `door_code: false` they show their way off the lock)' }),
  },
  { additionalProperties: false },
);

/** docs/design.md §12: a rental calendar. */
export const CalendarSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Calendar ID' }),
    url: Type.String({ description: 'The iCal feed\'s link (a secret: anyone who has it reads the calendar)' }),
    lock_ids: Type.Array(Type.String({ format: 'uuid' }), { description: 'The locks its stays open' }),
    check_in: clockTime('Check-in time of all-day stays, HH:MM on each lock\'s clock'),
    check_out: clockTime('Check-out time of all-day stays, HH:MM on each lock\'s clock'),
    door_code: Type.Boolean({ description: 'Stays get door codes on the locks' }),
    state: Type.Union([Type.Literal('ok'), Type.Literal('failing')], { description: 'ok: the last refresh read the feed; failing: it could not (see last_error) and nothing was changed' }),
    last_refresh_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the feed was last asked for, ISO 8601 UTC' }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last refresh failed, in words; null when it did not' }),
    bookings: Type.Array(BookingSchema, { description: 'The stays, by check-in' }),
  },
  { $id: 'Calendar', additionalProperties: false },
);

export const CalendarListSchema = Type.Object({ calendars: Type.Array(Type.Ref('Calendar')) }, { additionalProperties: false });

export const CalendarParamsSchema = Type.Object({ calendar_id: Type.String({ description: 'Calendar ID' }) });

const calendarFields = {
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'The iCal export link of the listing (http or https)', examples: ['https://www.airbnb.com/calendar/ical/123.ics?s=abc'] }),
  lock_ids: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 20, description: 'The locks its stays open; the caller must own each' }),
  check_in: clockTime('Check-in time of all-day stays (default 16:00)'),
  check_out: clockTime('Check-out time of all-day stays (default 11:00)'),
  door_code: Type.Boolean({ description: 'Give each stay a door code on every lock (default true); each lock needs a keypad' }),
};

/** `POST /calendars`. */
export const CreateCalendarBodySchema = Type.Object(
  {
    url: calendarFields.url,
    lock_ids: calendarFields.lock_ids,
    check_in: Type.Optional(calendarFields.check_in),
    check_out: Type.Optional(calendarFields.check_out),
    door_code: Type.Optional(calendarFields.door_code),
  },
  { additionalProperties: false },
);

/** `PUT /calendars/{id}`: absent is unchanged, null resets to the default; a body `id` is ignored. */
export const UpdateCalendarBodySchema = Type.Object(
  {
    id: Type.Optional(Type.Unknown({ description: 'Ignored' })),
    url: Type.Optional(Type.Union([calendarFields.url, Type.Null()])),
    lock_ids: Type.Optional(Type.Union([calendarFields.lock_ids, Type.Null()])),
    check_in: Type.Optional(Type.Union([calendarFields.check_in, Type.Null()])),
    check_out: Type.Optional(Type.Union([calendarFields.check_out, Type.Null()])),
    door_code: Type.Optional(Type.Union([calendarFields.door_code, Type.Null()])),
  },
  { additionalProperties: false },
);
