import { Type } from 'typebox';
import { EKEY_STATUSES, EKEY_TYPES } from '../../domain/ekey-types.js';
import { Uuid } from './common.js';

/*
 * eKey request and response bodies (spec: Resources › eKey; POST/PUT /ekey). Bodies are strict:
 * no coercion, unknown properties are 400. The schemas check shapes only; the eKey rules of
 * `domain/ekey-rules.ts` check DateTimes, schedules and the per-type invariants with field errors.
 */

const EKeyTypeSchema = Type.Union(
  EKEY_TYPES.map((type) => Type.Literal(type)),
  { description: 'owner, admin, anytime, scheduled or guest' },
);

const nullableText = (description: string, maxLength: number) =>
  Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()], { description }));

const DATE_TIME_HELP = '`M/D/YYYY h:mm:ss AM|PM` in the lock’s time zone, or ISO 8601 with an offset';
const SCHEDULE_HELP = 'Six fields `minute hour * * day-of-week *`; six asterisks = no restriction';

const editable = {
  name: nullableText('eKey name (at most 100 characters); null = none', 1000),
  message: nullableText('Message accompanying the eKey (at most 500 characters); null = none', 5000),
  valid_from: nullableText(`Start of validity, ${DATE_TIME_HELP}; null = from now on (guest) / unbounded`, 64),
  valid_to: nullableText(`End of validity (exclusive), ${DATE_TIME_HELP}; null = never expires (guest: 24 h after valid_from)`, 64),
  schedule_start: nullableText(`Time of day the key becomes active. ${SCHEDULE_HELP}`, 200),
  schedule_end: nullableText(`Time of day the key becomes inactive. ${SCHEDULE_HELP}`, 200),
};

/** docs/design.md §4c: an eKey's door code on a lock with a keypad. */
export const DoorCodeSchema = Type.Object(
  {
    code: Type.Union([Type.String({ pattern: '^[0-9]{4,12}$' }), Type.Null()], {
      description:
        "The code's digits, by the rules of the lock's keypad (docs/door-codes.md: a Nuki Keypad takes six digits 1–9, never starting with 12; other keypads take 0 as well), unique on the lock. Shown to the key's holder; the codes of anytime, scheduled and guest keys also to the lock's owners and admins; an owner or admin key's code to its holder alone. null for everyone else, while removing, and once removed",
    }),
    state: Type.Union(
      (['waiting', 'setting', 'set', 'failed', 'removing', 'removed'] as const).map((state) => Type.Literal(state)),
      {
        description:
          'waiting: the key is pending, nothing is on the lock; setting → set only after the lock confirmed (retried until it does); failed: see failure_reason; removing → removed only after the lock confirmed',
      },
    ),
    enforced_by: Type.Union([Type.Literal('lock'), Type.Literal('service')], {
      description:
        'lock: the lock holds the whole window (date range, weekdays, one daily window not crossing midnight); service: the lock holds the date range and the service enables the code at each window start and disables it at each end',
    }),
    failure_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed (keypad_full, refused_by_lock, link_lost, …); null in every other state' }),
    updated_at: Type.String({ format: 'date-time', description: 'When the state last changed (ISO 8601 UTC)' }),
  },
  { $id: 'DoorCode', additionalProperties: false },
);

/** Spec: eKey object, fields in the spec's order, foreign keys last. */
export const EKeySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'eKey ID' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'eKey name; null when none was given' }),
    type: EKeyTypeSchema,
    status: Type.Union(
      EKEY_STATUSES.map((status) => Type.Literal(status)),
      { description: 'pending (invited user has not signed up), accepted, revoked' },
    ),
    valid_from: Type.Union([Type.String(), Type.Null()], { description: `Start of validity, ${DATE_TIME_HELP.split(',')[0] ?? ''}; null = unbounded` }),
    valid_to: Type.Union([Type.String(), Type.Null()], { description: 'End of validity (exclusive); null = never expires' }),
    schedule_start: Type.Union([Type.String(), Type.Null()], { description: 'Schedule start; null for keys without a schedule' }),
    schedule_end: Type.Union([Type.String(), Type.Null()], { description: 'Schedule end; null for keys without a schedule' }),
    message: Type.Union([Type.String(), Type.Null()], { description: 'Message accompanying the eKey; null when none' }),
    user_id: Type.String({ format: 'uuid', description: 'User the eKey belongs to' }),
    lock_id: Type.String({ format: 'uuid', description: 'Lock the eKey belongs to' }),
    door_code: Type.Union([Type.Ref('DoorCode'), Type.Null()], { description: 'The door code (docs/door-codes.md); null when the key never had one' }),
  },
  { $id: 'EKey', additionalProperties: false },
);

/** Spec: POST /ekey request body. */
export const SendEKeyBodySchema = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, description: 'E-mail address of the receiving user (unknown addresses are invited)' }),
    lock_id: Uuid,
    type: EKeyTypeSchema,
    ...editable,
    door_code: Type.Optional(Type.Boolean({ description: 'true: give the key a door code (a lock with a keypad only; otherwise 400 lock_has_no_keypad)' })),
  },
  { additionalProperties: false, description: 'Send an eKey' },
);

/** Spec: PUT /ekey/{ekey_id} body — null resets to the default, absent leaves unchanged, `id` is ignored. */
export const UpdateEKeyBodySchema = Type.Object(
  {
    id: Type.Optional(Type.Unknown({ description: 'Ignored (the ID is the one in the path)' })),
    type: Type.Optional(Type.Union([EKeyTypeSchema, Type.Null()], { description: 'New type (the grant action); null is refused' })),
    ...editable,
    door_code: Type.Optional(Type.Boolean({ description: 'true: give the key a door code (a new one if it had one taken away); false: take it off the lock; absent: no change' })),
  },
  { additionalProperties: false, description: 'Change an eKey' },
);

/** Path parameter of the /ekey/{ekey_id} routes; any case. */
export const EKeyParamsSchema = Type.Object({ ekey_id: Uuid });

/** Query of DELETE /ekey/{ekey_id}. */
export const RemoveEKeyQuerySchema = Type.Object({
  purge: Type.Optional(Type.Boolean({ description: 'true = delete the record (revoking it first) instead of only revoking', default: false })),
});

/** Spec: GET /locks/{lock_id}/ekeys response. */
export const EKeyListSchema = Type.Object({ ekeys: Type.Array(Type.Ref('EKey')) }, { additionalProperties: false });
