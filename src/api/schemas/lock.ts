import { Type } from 'typebox';

/** Spec: Lock as it appears in a user's lock list — the spec's four fields first, then ours. */
export const LockSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Lock ID' }),
    name: Type.String({ description: 'Lock name' }),
    bolt_state: Type.Union([Type.Literal('locked'), Type.Literal('unlocked'), Type.Literal('jammed'), Type.Literal('unknown')], {
      description: 'locked, unlocked, jammed or unknown (not yet reported)',
    }),
    online_status: Type.Union([Type.Literal('online'), Type.Literal('offline')], { description: 'Whether the gateway reaches the lock' }),
    time_zone: Type.String({ description: 'IANA time zone; eKey DateTimes of this lock are in it' }),
    battery_level: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: '0 to 1; null until reported' }),
    last_seen_at: Type.Union([Type.String(), Type.Null()], { description: 'Last sign of life, ISO 8601 UTC with milliseconds; null if never' }),
    your_role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('guest')], {
      description: "The caller's role on the lock (guest = anytime, scheduled or guest key)",
    }),
    ekey_id: Type.String({ format: 'uuid', description: "The caller's usable eKey on the lock" }),
    keypad: Type.Boolean({ description: 'A keypad is paired with the lock: its eKeys can carry door codes (docs/door-codes.md)' }),
  },
  { $id: 'Lock', additionalProperties: false },
);

/** Spec: GET /users/{user_id}/locks response. */
export const LockListSchema = Type.Object({ locks: Type.Array(Type.Ref('Lock')) }, { additionalProperties: false });
