import { Type } from 'typebox';
import { DEFAULT_EVENT_LIMIT, MAX_EVENT_LIMIT } from '../../domain/event-paging.js';

/** Spec: LockEvent. `performer` only on lock/unlock, `value` only on battery events; docs/design.md §4d adds `ring`, `unlatched`, `opened`, `mode`; §4c adds `via` and `keypad_refused`; §12 adds `booking`. */
export const LockEventSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Event ID' }),
    type: Type.Union([Type.Literal('lock'), Type.Literal('unlock'), Type.Literal('battery'), Type.Literal('ring'), Type.Literal('keypad_refused')], {
      description:
        'lock, unlock, battery, ring (a ring at a Nuki Opener; no performer), or keypad_refused (a code the lock refused at its keypad; no performer, never the code; owners and admins only)',
    }),
    lock_id: Type.String({ format: 'uuid', description: 'Lock the event is for' }),
    performer: Type.Optional(Type.Ref('User', { description: 'User who performed the event; absent in battery events' })),
    timestamp: Type.String({ format: 'date-time', description: 'When the event occurred, ISO 8601 UTC with milliseconds and Z' }),
    value: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Battery level on a 0 to 1 scale (battery events)' })),
    unlatched: Type.Optional(Type.Literal(true, { description: 'An unlock that pulled the latch (command `unlatch`); absent otherwise' })),
    opened: Type.Optional(Type.Literal(true, { description: 'A ring on which the Opener opened the door (Ring to Open or Continuous Mode); absent otherwise' })),
    mode: Type.Optional(
      Type.Union([Type.Literal('ring_to_open'), Type.Literal('continuous_mode')], {
        description: "The Opener mode a command switched: on (an unlock event) or off (a lock event)",
      }),
    ),
    via: Type.Optional(Type.Literal('keypad', { description: 'A door code was typed on the lock\'s keypad: an eKey\'s (its holder is the performer, docs/door-codes.md) or a rental stay\'s (`booking`); absent otherwise' })),
    booking: Type.Optional(
      Type.Object(
        {
          uid: Type.String({ description: 'The stay\'s UID in its calendar' }),
          summary: Type.String({ description: 'The stay\'s title in its calendar (e.g. "Reserved")' }),
        },
        { additionalProperties: false, description: 'The rental stay whose door code was typed at the keypad (docs/bookings.md); such an event has no performer, so only owners and admins see it' },
      ),
    ),
  },
  { $id: 'LockEvent', additionalProperties: false },
);

/** Spec: Pagination metadata. Links are relative URLs keeping `limit` and `type`. */
export const EventPageMetadataSchema = Type.Object(
  {
    limit: Type.Integer({ description: 'Page size in effect' }),
    count: Type.Integer({ description: 'Total number of events matching the filter (that the caller may see)' }),
    previous: Type.Optional(Type.String({ description: 'Relative URL of the newer neighbouring page; absent on the newest page' })),
    next: Type.Optional(Type.String({ description: 'Relative URL of the older neighbouring page; absent on the oldest page' })),
  },
  { additionalProperties: false },
);

/** `GET /locks/{lock_id}/events` response. */
export const LockEventPageSchema = Type.Object(
  {
    lock_events: Type.Array(Type.Ref('LockEvent')),
    metadata: EventPageMetadataSchema,
  },
  { additionalProperties: false },
);

/**
 * Query of the event list. Kept as strings here: the domain validates them (event-paging.ts) so
 * that every refusal carries a precise code (`invalid_type`, `invalid_limit`, `invalid_cursor`,
 * `conflicting_cursors`), and only after the lock's visibility was checked.
 */
export const EventPageQuerySchema = Type.Object({
  type: Type.Optional(Type.String({ description: 'Comma-joined event types to include: lock, unlock, battery, ring, keypad_refused', examples: ['lock,unlock'] })),
  limit: Type.Optional(
    Type.String({ description: `Page size, 1 to ${MAX_EVENT_LIMIT} (default ${DEFAULT_EVENT_LIMIT})`, examples: ['50'] }),
  ),
  after: Type.Optional(Type.String({ description: 'Event ID: the page of events older than it (newest first)' })),
  before: Type.Optional(Type.String({ description: 'Event ID: the page of events just newer than it (still newest first)' })),
});
