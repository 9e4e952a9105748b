import { Type, type Static } from 'typebox';
import { LOCK_FAMILY_IDS, type LockFamilyId } from '../families/registry.js';

/*
 * The plugin config's JSON Schema (TypeBox), the one source of its types and of its validators:
 * scripts/config-validators.mjs compiles these into src/config/plugin-config-validators.generated.ts,
 * which src/config/plugin-config.ts checks configs with, so neither TypeBox nor Ajv loads on
 * Homebridge's main thread (docs/architecture.md "Start-up"). config.schema.json is checked
 * against it too (test/unit/config/config-schema-file.test.ts).
 */

const Uuid = Type.String({ format: 'uuid' });

export const ClientConfigSchema = Type.Object(
  {
    client_id: Uuid,
    client_secret: Type.Optional(Type.String({ minLength: 16 })),
    name: Type.Optional(Type.String({ maxLength: 100 })),
    redirect_uris: Type.Array(Type.String({ format: 'uri' }), { minItems: 1 }),
    public: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const LockConfigSchema = Type.Object(
  {
    id: Type.Optional(Uuid),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    address: Type.Optional(Type.String({ pattern: '^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$' })),
    key: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })),
    time_zone: Type.Optional(Type.String({ minLength: 1 })),
    owner_email: Type.String({ format: 'email' }),
    gateway: Type.Optional(Type.Boolean()),
    /** Which protocol the lock speaks (docs/design.md §4b); default `ekey`. A `nuki` lock needs no `key`: it is paired. */
    family: Type.Optional(Type.Unsafe<LockFamilyId>(Type.Union(LOCK_FAMILY_IDS.map((id) => Type.Literal(id))))),
    /** Nuki only: a Nuki Keypad is paired with the lock, so eKeys can carry door codes (docs/design.md §4c); default false. */
    keypad: Type.Optional(Type.Boolean()),
    /**
     * Nuki only: the lock's own app authorizations (by the name shown in the Nuki app) linked to
     * our users (by e-mail); their actions become taps by those users (docs/design.md §4b).
     */
    nuki_users: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 32 }), Type.String({ format: 'email' }))),
  },
  { additionalProperties: false },
);

export const UserPolicyConfigSchema = Type.Object(
  {
    email: Type.String({ format: 'email' }),
    ekey_quota: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    can_send_ekeys: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** The platform block of Homebridge's config.json, also the file `ekey-locks serve --config` reads. */
export const PluginConfigSchema = Type.Object(
  {
    platform: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    demo: Type.Optional(Type.Boolean()),
    /** Show every lock as a Matter door lock too, when Homebridge 2 runs Matter for this bridge (default true; docs/design.md §5b). */
    matter: Type.Optional(Type.Boolean()),
    api: Type.Optional(
      Type.Object(
        {
          host: Type.Optional(Type.String()),
          port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
          public_url: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://' })),
          /** More `Host` names the service answers (docs/design.md §9b); `*.example.org` for a whole domain. */
          allowed_hosts: Type.Optional(Type.Array(Type.String({ minLength: 1, pattern: '^(\\*\\.)?[^\\s/@*]+$' }))),
          /** Reverse proxies whose X-Forwarded-* headers are believed: the proxy's own address (a range is warned about: docs/remote-access.md). */
          trusted_proxies: Type.Optional(Type.Array(Type.String({ minLength: 1, pattern: '^[0-9A-Fa-f:.]+(/\\d{1,3})?$' }))),
          token_ttl_s: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400 })),
          oauth_rate_limit_per_minute: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    clients: Type.Optional(Type.Array(ClientConfigSchema)),
    locks: Type.Optional(Type.Array(LockConfigSchema)),
    users: Type.Optional(Type.Array(UserPolicyConfigSchema)),
    bluetooth: Type.Optional(
      Type.Object(
        {
          transport: Type.Optional(Type.Union([Type.Literal('bluez'), Type.Literal('simulator')])),
          adapter: Type.Optional(Type.String()),
          offline_after_s: Type.Optional(Type.Integer({ minimum: 5 })),
          command_timeout_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 120 })),
        },
        { additionalProperties: false },
      ),
    ),
    smtp: Type.Optional(
      Type.Object(
        {
          host: Type.String(),
          port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
          secure: Type.Optional(Type.Boolean()),
          user: Type.Optional(Type.String()),
          password: Type.Optional(Type.String()),
          from: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    homekit: Type.Optional(
      Type.Object(
        {
          user_email: Type.Optional(Type.String({ format: 'email' })),
          low_battery_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          arrival_triggers: Type.Optional(Type.Array(Type.String({ format: 'email' }))),
          /**
           * docs/design.md §4d: on locks that can unlatch, `off` (default), `separate` (a second lock
           * service "Open <lock>" whose unlock unlatches) or `on_unlock` (every HomeKit unlock unlatches).
           */
          unlatch: Type.Optional(Type.Union([Type.Literal('off'), Type.Literal('separate'), Type.Literal('on_unlock')])),
        },
        { additionalProperties: false },
      ),
    ),
    events: Type.Optional(
      Type.Object(
        {
          /** Events recorded more than this many days ago are pruned in the background. */
          max_age_days: Type.Optional(Type.Integer({ minimum: 1 })),
          /** Only the newest this-many events of each lock are kept. */
          max_per_lock: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  // Homebridge adds its own keys (e.g. `_bridge`), so unknown top-level keys are tolerated.
  { additionalProperties: true },
);

export type PluginConfig = Static<typeof PluginConfigSchema>;
export type LockConfig = Static<typeof LockConfigSchema>;
export type ClientConfig = Static<typeof ClientConfigSchema>;
