import { Type, type Static } from 'typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '../domain/errors.js';
import { DEFAULT_LOCK_FAMILY, LOCK_FAMILY_IDS, lockFamily, type LockFamilyId } from '../families/registry.js';
import { hostTimeZone, isValidTimeZone } from './time-zone.js';

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
          /** Reverse proxies whose X-Forwarded-* headers are believed: addresses or CIDR ranges (docs/design.md §7). */
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

/**
 * The config's validators, compiled on first use (~0.1 s of ajv): the platform checks the config
 * on Homebridge's main thread while Homebridge loads it (src/homebridge/ekey-locks-platform.ts); the
 * service thread, which imports this module for its types and defaults but is handed a checked
 * config, never pays for them. Our schemas are fixed and tested, so ajv does not check them
 * against the JSON Schema meta-schema first (`validateSchema: false`, half the compile time).
 */
let compiled: { validate: ValidateFunction; validateLock: ValidateFunction } | undefined;
function validators(): { validate: ValidateFunction; validateLock: ValidateFunction } {
  if (compiled === undefined) {
    const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
    addFormats.default(ajv);
    compiled = { validate: ajv.compile(PluginConfigSchema), validateLock: ajv.compile(LockConfigSchema) };
  }
  return compiled;
}

function fieldErrors(errors: ValidateFunction['errors']): FieldError[] {
  return (errors ?? []).map((issue) => {
    const params = issue.params as Record<string, unknown>;
    const extra =
      typeof params.additionalProperty === 'string' ? `/${params.additionalProperty}` : typeof params.missingProperty === 'string' ? `/${params.missingProperty}` : '';
    return { field: `${issue.instancePath}${extra}` || '/', message: issue.message ?? 'is invalid' };
  });
}

/** Validates a whole config object, locks included; returns per-field errors (empty when valid). */
export function validatePluginConfig(config: unknown): FieldError[] {
  const { validate } = validators();
  return validate(config) ? [] : fieldErrors(validate.errors);
}

/** What {@link checkPluginConfig} decided. */
export interface ConfigCheck {
  /** The config to run with, bad lock entries left out; undefined when `errors` is not empty. */
  config: PluginConfig | undefined;
  /** Errors outside `locks[]`: the plugin cannot start with them. */
  errors: FieldError[];
  /** One line per lock entry left out, naming the lock and every field at fault (docs/design.md §9). */
  skippedLocks: string[];
}

/**
 * Checks a config the way the service runs it (docs/design.md §9): a lock entry that fails validation
 * (time zone, address, key, family, …) is left out with one line naming the lock and the field,
 * and the other locks run; anything wrong outside `locks[]` stops the plugin.
 */
export function checkPluginConfig(raw: unknown): ConfigCheck {
  const isObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  const locks: unknown = isObject ? (raw as Record<string, unknown>).locks : undefined;
  if (!isObject || !Array.isArray(locks)) {
    const errors = validatePluginConfig(raw);
    return { config: errors.length === 0 ? (raw as PluginConfig) : undefined, errors, skippedLocks: [] };
  }
  const errors = validatePluginConfig({ ...raw, locks: [] });
  const kept: LockConfig[] = [];
  const skippedLocks: string[] = [];
  locks.forEach((entry, index) => {
    const problems = lockEntryProblems(entry);
    if (problems.length === 0) {
      kept.push(entry as LockConfig);
      return;
    }
    const given = (entry as { name?: unknown } | null)?.name;
    const name = typeof given === 'string' && given.trim() !== '' ? `"${given}"` : `#${index + 1}`;
    const fields = problems.map((problem) => `${problem.field.replace(/^\//, '') || 'entry'}: ${problem.message}`).join('; ');
    skippedLocks.push(`Lock ${name} (locks[${index}]) is left out: ${fields}. The other locks run.`);
  });
  return { config: errors.length === 0 ? { ...raw, locks: kept } : undefined, errors, skippedLocks };
}

/** What is wrong with one `locks[]` entry: the schema, then what the schema cannot say. */
export function lockEntryProblems(entry: unknown): FieldError[] {
  const { validateLock } = validators();
  if (!validateLock(entry)) return fieldErrors(validateLock.errors);
  const lock = entry as LockConfig;
  const problems: FieldError[] = [];
  const zone = lock.time_zone ?? hostTimeZone();
  if (!isValidTimeZone(zone)) problems.push({ field: '/time_zone', message: `"${zone}" is not an IANA time zone (e.g. "Europe/Berlin")` });
  const family = lockFamily(lock.family ?? DEFAULT_LOCK_FAMILY);
  problems.push(...family.configProblems(lock));
  if (lock.keypad === true && !family.takesKeypad) problems.push({ field: '/keypad', message: 'is only for a Nuki Smart Lock (a Nuki Keypad pairs with a Nuki Smart Lock)' });
  return problems;
}
