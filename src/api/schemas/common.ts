import { Type } from 'typebox';

/** A UUID in canonical form, any case (locks may be upper case). */
export const Uuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'UUID',
});

/** RFC 9457 problem details as this API sends them. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable machine-readable error code' }),
    request_id: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    // A command refused because the caller's eKey is not usable now (code `ekey_not_usable`): why, and when it works.
    ekey_id: Type.Optional(Type.String({ description: 'ekey_not_usable: the caller\'s eKey on the lock' })),
    lock_time_zone: Type.Optional(Type.String({ description: 'ekey_not_usable: the lock\'s IANA time zone' })),
    not_usable_because: Type.Optional(Type.String({ description: 'ekey_not_usable: pending, revoked, not_yet_valid, expired or outside_schedule' })),
    next_usable_at: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'ekey_not_usable: when the key works next (ISO 8601 UTC), null when never' })),
    usable_until: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'ekey_not_usable: end of that usable stretch (ISO 8601 UTC), null when none or unbounded' })),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);

/** The usual error answers of a protected route, for the OpenAPI document. */
export const protectedErrors = {
  400: Type.Ref('Problem'),
  401: Type.Ref('Problem'),
  404: Type.Ref('Problem'),
  406: Type.Ref('Problem'),
} as const;
