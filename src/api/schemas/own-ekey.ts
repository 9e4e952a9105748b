import { Type } from 'typebox';
import { EKeySchema } from './ekey.js';

const instant = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

/** docs/design.md §7: an eKey object with the lock it opens and when it works (`GET /users/{user_id}/ekeys`). */
export const OwnEKeySchema = Type.Object(
  {
    ...EKeySchema.properties,
    lock_name: Type.String({ description: 'Name of the lock the eKey opens' }),
    lock_time_zone: Type.String({ description: "The lock's IANA time zone: valid_from, valid_to and the schedule are read on its clock" }),
    usable_now: Type.Boolean({ description: 'Whether a lock or unlock command with this eKey would be accepted now' }),
    not_usable_because: Type.Union(
      [...(['pending', 'revoked', 'not_yet_valid', 'expired', 'outside_schedule'] as const).map((reason) => Type.Literal(reason)), Type.Null()],
      { description: 'Why the eKey is not usable now; null when it is' },
    ),
    next_usable_at: instant('When the eKey becomes usable next (ISO 8601 UTC); null when usable now or never again as it stands'),
    usable_until: instant('When the current (or next) usable stretch ends (ISO 8601 UTC); null when it does not end, or there is none'),
  },
  { $id: 'OwnEKey', additionalProperties: false },
);

export const OwnEKeyListSchema = Type.Object({ ekeys: Type.Array(Type.Ref('OwnEKey')) }, { additionalProperties: false });
