import { Type } from 'typebox';
import { LOCK_COMMAND_TYPES } from '../../domain/lock-command-type.js';
import { MAX_CONTINUOUS_LIMIT_MINUTES } from '../../domain/opener-mode.js';

/** Spec: Lock as it appears in a user's lock list — the spec's four fields first, then ours. */
export const LockSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Lock ID' }),
    name: Type.String({ description: 'Lock name' }),
    bolt_state: Type.Union([Type.Literal('locked'), Type.Literal('unlocked'), Type.Literal('jammed'), Type.Literal('unknown')], {
      description: 'locked, unlocked, jammed or unknown (not yet reported)',
    }),
    online_status: Type.Union([Type.Literal('online'), Type.Literal('offline')], { description: 'Whether the gateway reaches the lock' }),
    bolt_state_source: Type.Optional(
      Type.Literal('assumed', {
        description:
          'On a lock that cannot sense its bolt only: bolt_state is assumed — the last position the lock drove to (a command, its keypad), which a turn by hand does not change. Absent where bolt_state is a reading',
      }),
    ),
    time_zone: Type.String({ description: 'IANA time zone; eKey DateTimes of this lock are in it' }),
    battery_level: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: '0 to 1; null until reported' }),
    last_seen_at: Type.Union([Type.String(), Type.Null()], { description: 'Last sign of life, ISO 8601 UTC with milliseconds; null if never' }),
    your_role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('guest')], {
      description: "The caller's role on the lock (guest = anytime, scheduled or guest key)",
    }),
    ekey_id: Type.String({ format: 'uuid', description: "The caller's usable eKey on the lock" }),
    keypad: Type.Boolean({ description: 'A keypad is paired with the lock: its eKeys can carry door codes (docs/door-codes.md)' }),
    supported_commands: Type.Array(Type.Union(LOCK_COMMAND_TYPES.map((type) => Type.Literal(type))), {
      description:
        'The command types this lock runs: lock and unlock on every lock; unlatch (open the door) on a Nuki Smart Lock; ring_to_open_on|off and continuous_mode_on|off on a Nuki Opener',
    }),
    opener_mode: Type.Optional(
      Type.Union([Type.Literal('none'), Type.Literal('ring_to_open'), Type.Literal('continuous')], {
        description: 'A Nuki Opener only: its mode now — none, ring_to_open (the next ring opens the door once) or continuous (every ring opens it)',
      }),
    ),
    opener_mode_set_by: Type.Optional(
      Type.Union([Type.Ref('User'), Type.Null()], {
        description:
          "A Nuki Opener only: who switched the mode on, for the lock's owners and admins; null for everyone else, when it is off, or when it was switched on elsewhere (the vendor's app). When that person's key ends, the service switches the mode off.",
      }),
    ),
    opener_mode_until: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: "A Nuki Opener only: when the service switches Continuous Mode off by the owner's cap (ISO 8601 UTC); null otherwise",
      }),
    ),
    continuous_mode_limit_minutes: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: MAX_CONTINUOUS_LIMIT_MINUTES }), Type.Null()], {
        description: "A Nuki Opener only: the owner's cap on Continuous Mode in minutes (shown to owners and admins); null: none",
      }),
    ),
    gateway: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              id: Type.String({ description: "The gateway's id: `host` for the host's own Bluetooth adapter, else the Bluetooth proxy's configured name" }),
              name: Type.String({ description: "The gateway's name" }),
              rssi: Type.Union([Type.Integer(), Type.Null()], { description: 'Signal of the latest advertisement heard through it, dBm (good ≥ −70, fair ≥ −85, else poor); null when not heard (a link kept open)' }),
              seen_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it last heard the lock, ISO 8601 UTC; null when not heard' }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        {
          description:
            "For the lock's owners and admins only (absent for everyone else): the gateway device that reaches the lock now — the host's adapter or an ESPHome Bluetooth proxy (docs/gateways.md) — or null while none hears it",
        },
      ),
    ),
  },
  { $id: 'Lock', additionalProperties: false },
);

/** `PUT /locks/{lock_id}/opener-settings` body and answer (docs/design.md §4d). */
export const OpenerSettingsSchema = Type.Object(
  {
    continuous_mode_limit_minutes: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_CONTINUOUS_LIMIT_MINUTES }), Type.Null()], {
      description: `Continuous Mode is switched off by the service this many minutes after it was switched on (1 to ${MAX_CONTINUOUS_LIMIT_MINUTES}, a week); null: no cap`,
    }),
  },
  { additionalProperties: false, description: "An Opener's settings that its owners choose" },
);

/** Spec: GET /users/{user_id}/locks response. */
export const LockListSchema = Type.Object({ locks: Type.Array(Type.Ref('Lock')) }, { additionalProperties: false });
