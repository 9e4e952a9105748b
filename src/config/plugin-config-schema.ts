import { Type, type Static, type TSchema } from 'typebox';
import { DEFAULT_LOCK_FAMILY, LOCK_FAMILIES, familyDescriptor, type LockFamilyId } from '../families/registry.js';
import { DEFAULT_TRANSPORT_KIND, TRANSPORT_KINDS, type TransportKindId } from '../gateway/transports/transport-kinds.js';

/*
 * The plugin config's JSON Schema (TypeBox): the one source of its types, its validators and the
 * Homebridge UI's form. scripts/config-files.mjs compiles it into
 * src/config/plugin-config-validators.generated.ts (what src/config/plugin-config.ts checks configs
 * with, so neither TypeBox nor Ajv loads on Homebridge's main thread, docs/architecture.md
 * "Start-up") and into config.schema.json (with the layout of plugin-config-form.ts); tests fail
 * while either committed file is not what the script makes.
 *
 * Besides the rules, each field carries what the form and the error lines show:
 * - `title`, `description`, `placeholder`, `x-schema-form`: the form's words (config.schema.json);
 * - `x-hint`: what a value must look like, in words, for a field with a `pattern` (error lines say
 *   it instead of the expression);
 * - `x-form-choice`: of a union, the one shape the form edits (the form cannot edit the others);
 * - `x-unset`: the value the code uses when the field is left out, where the form shows it empty (a
 *   config the form saved earlier may hold it in an entry nobody filled in);
 * - `default` only where the form writes a value by itself: every checkbox (the form saves an
 *   untouched one as false), so a checkbox's default is the code's default. Nothing else has one:
 *   the form would write it into every empty entry it shows (docs/configuration.md "Saving in the
 *   Homebridge UI").
 */

const Uuid = (options: Record<string, unknown>) => Type.String({ format: 'uuid', ...options });
const Email = (options: Record<string, unknown>) => Type.String({ format: 'email', ...options });
const Password = { 'x-schema-form': { type: 'password' } };

export const ClientConfigSchema = Type.Object(
  {
    client_id: Uuid({ title: 'Client ID (UUID)' }),
    client_secret: Type.Optional(Type.String({ minLength: 16, title: 'Client secret (at least 16 characters; empty for a public client)', ...Password })),
    name: Type.Optional(Type.String({ maxLength: 100, title: 'Name' })),
    redirect_uris: Type.Array(Type.String({ format: 'uri', title: 'Redirect URI' }), { minItems: 1, title: 'Redirect URIs' }),
    public: Type.Optional(Type.Boolean({ default: false, title: 'Public client (no secret, PKCE required)' })),
  },
  { additionalProperties: false },
);

/**
 * The fields every lock family's `locks[]` entry may have beside those every lock has: each
 * family's own (src/families/<family>/<family>-family.ts `configFields`), merged; a field several
 * families declare must be declared alike (the same JSON).
 */
function familyConfigFields(): Record<string, TSchema> {
  const fields: Record<string, TSchema> = {};
  const declared = new Map<string, string>();
  for (const family of LOCK_FAMILIES) {
    for (const [name, schema] of Object.entries(family.configFields)) {
      const text = JSON.stringify(schema);
      const earlier = declared.get(name);
      if (earlier !== undefined && earlier !== text) throw new Error(`Lock families declare the config field "${name}" differently (${family.id}).`);
      declared.set(name, text);
      fields[name] = Type.Optional(Type.Unsafe(schema as Record<string, unknown>));
    }
  }
  return fields;
}

/** The families whose locks a keypad pairs with, for the keypad setting's title. */
const keypadFamilies = LOCK_FAMILIES.filter((family) => family.capabilities.keypad).map((family) => family.displayName);

export const LockConfigSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, title: 'Name' }),
    /** Which protocol the lock speaks (docs/design.md §4b); the registry's first family when left out. */
    family: Type.Optional(
      Type.Unsafe<LockFamilyId>(
        Type.Union(
          LOCK_FAMILIES.map((family) => Type.Literal(family.id, { title: family.formTitle })),
          {
            title: 'Lock family',
            'x-unset': DEFAULT_LOCK_FAMILY,
            description: `Empty: the ${familyDescriptor(DEFAULT_LOCK_FAMILY)?.displayName ?? 'first family'}. A lock that is paired needs no key here: pairing stores its credentials in the plugin's data folder (docs/nuki.md).`,
          },
        ),
      ),
    ),
    owner_email: Email({ title: 'Owner\'s e-mail' }),
    address: Type.Optional(
      Type.String({ pattern: '^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$', 'x-hint': 'a Bluetooth address like AA:BB:CC:DD:EE:FF', title: 'Bluetooth address', placeholder: 'AA:BB:CC:DD:EE:FF' }),
    ),
    time_zone: Type.Optional(Type.String({ minLength: 1, title: 'Time zone (IANA)', placeholder: 'the host\'s, e.g. Europe/Berlin', description: 'Empty: the time zone of the Homebridge host.' })),
    gateway: Type.Optional(
      Type.Boolean({
        default: true,
        title: 'Reached over Bluetooth',
        description: 'Off for a lock that is only listed (its commands are refused as the spec says for a lock without a gateway connection).',
      }),
    ),
    /** A keypad is paired with the lock, so eKeys can carry door codes (docs/design.md §4c); default false. */
    keypad: Type.Optional(
      Type.Boolean({
        default: false,
        title: `A keypad is paired with this lock (${keypadFamilies.join(', ') || 'locks that take one'})`,
        description: 'eKeys can then carry a door code that works at the keypad without a phone (docs/door-codes.md).',
      }),
    ),
    /** docs/design.md §4e: the gateways that may serve this lock, by name (`host`: the host's adapter); empty: every one. */
    gateways: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 50, title: 'Gateway name' }), {
        title: 'Reached only through these gateways',
        description: 'Names of Bluetooth proxies (as under Bluetooth → Proxies), and "host" for this host\'s own adapter. Empty: whichever gateway hears the lock best.',
      }),
    ),
    id: Type.Optional(
      Uuid({
        title: 'Lock ID (UUID, optional)',
        description: 'Empty: derived from the Bluetooth address. A lock without an address needs one (any UUID): renaming it then keeps its eKeys and history.',
      }),
    ),
    ...familyConfigFields(),
  },
  { additionalProperties: false },
);

/** docs/design.md §4e: one ESPHome Bluetooth proxy (`bluetooth.proxies[]`). */
export const ProxyConfigSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '^(?!host$).+$',
      'x-hint': 'a name other than "host" (which means this host\'s own adapter)',
      title: 'Name',
      placeholder: 'Hall',
      description: 'How the proxy is shown and named in a lock\'s "Reached only through these gateways".',
    }),
    host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[^\\s/]+$', 'x-hint': 'a host name or address like hall-proxy.local or 192.168.1.40', title: 'Host', placeholder: 'hall-proxy.local' }),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, title: 'Port', placeholder: 6053, description: 'Empty: 6053, ESPHome\'s native API.' })),
    encryption_key: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9+/]{43}=$',
        'x-hint': 'the base64 of 32 bytes (44 characters ending in "="), as under api: encryption: key: in the proxy\'s ESPHome YAML',
        title: 'Encryption key',
        description: 'The key under api: encryption: key: in the proxy\'s YAML. Empty: the unencrypted API, which anyone on your network can read.',
        ...Password,
      }),
    ),
  },
  { additionalProperties: false },
);

export const UserPolicyConfigSchema = Type.Object(
  {
    email: Email({ title: 'E-mail' }),
    ekey_quota: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { title: 'eKey quota (empty = unlimited)' })),
    can_send_ekeys: Type.Optional(Type.Boolean({ default: true, title: 'May send eKeys' })),
  },
  { additionalProperties: false },
);

/**
 * MQTT and Home Assistant (docs/design.md §11, docs/home-assistant.md). Off when the section is
 * absent; a section with a fault is left out as a whole (src/config/plugin-config.ts), never half of it.
 */
export const MqttConfigSchema = Type.Object(
  {
    url: Type.String({
      pattern: '^mqtts?://[^\\s/]+',
      'x-hint': 'an address like mqtt://broker.local:1883 or mqtts://broker.local:8883',
      title: 'Broker URL',
      placeholder: 'mqtt://broker.local:1883',
      description: 'mqtt:// (port 1883 by default) or mqtts:// for TLS (8883).',
    }),
    username: Type.Optional(Type.String({ title: 'User name' })),
    password: Type.Optional(Type.String({ title: 'Password', ...Password })),
    base_topic: Type.Optional(
      Type.String({
        pattern: '^[^#+\\s]+$',
        'x-hint': 'topic levels without spaces, + or #, like ekey-locks or home/ekey-locks',
        title: 'Base topic',
        placeholder: 'ekey-locks',
        description: 'Every topic of this service starts with it. Sites sharing one broker each need their own.',
      }),
    ),
    discovery: Type.Optional(Type.Boolean({ default: true, title: 'Home Assistant discovery', description: 'Announce every lock to Home Assistant as a device with its entities.' })),
    discovery_prefix: Type.Optional(
      Type.String({ pattern: '^[^#+\\s]+$', 'x-hint': 'a topic like homeassistant', title: 'Discovery prefix', placeholder: 'homeassistant', 'x-unset': 'homeassistant' }),
    ),
    acting_user: Type.Optional(
      Email({
        title: 'Commands run as (e-mail)',
        placeholder: 'each lock\'s owner',
        description: 'LOCK, UNLOCK and OPEN from MQTT run as this user, who must own or administer the lock, and appear in the history under this name. Empty: each lock\'s owner.',
      }),
    ),
    ca: Type.Optional(Type.String({ minLength: 1, title: 'CA certificate file (mqtts://)', placeholder: '/etc/ssl/certs/my-broker-ca.pem' })),
    protocol_version: Type.Optional(
      Type.Union([Type.Literal('4', { title: 'MQTT 3.1.1' }), Type.Literal('5', { title: 'MQTT 5' })], { title: 'Protocol version', 'x-unset': '4', description: 'Empty: MQTT 3.1.1.' }),
    ),
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, title: 'Client ID', placeholder: 'made up at every start' })),
  },
  { additionalProperties: false, title: 'MQTT (Home Assistant)' },
);

/** The platform block of Homebridge's config.json, also the file `ekey-locks serve --config` reads. */
export const PluginConfigSchema = Type.Object(
  {
    platform: Type.Optional(Type.String()),
    name: Type.Optional(Type.String({ title: 'Name', default: 'eKey Locks' })),
    demo: Type.Optional(
      Type.Boolean({
        default: false,
        title: 'Demo mode',
        description: 'Start a demo household with simulated locks (no hardware needed). Logins are printed in the log.',
      }),
    ),
    /** Show every lock as a Matter door lock too, when Homebridge 2 runs Matter for this bridge (default true; docs/design.md §5b). */
    matter: Type.Optional(
      Type.Boolean({
        default: true,
        title: 'Matter',
        description:
          'Also show every lock as a Matter door lock (Google Home, Alexa, SmartThings, Home Assistant) when Matter is enabled for the bridge that runs this plugin (Homebridge 2). Turn off to keep the locks in HomeKit only.',
      }),
    ),
    locks: Type.Optional(Type.Array(LockConfigSchema, { title: 'Locks' })),
    api: Type.Optional(
      Type.Object(
        {
          host: Type.Optional(
            Type.String({
              title: 'Listen address',
              placeholder: 'every interface (0.0.0.0)',
              description: 'Empty: every interface (in demo mode: 127.0.0.1 only). 127.0.0.1 keeps the service on this host.',
            }),
          ),
          port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, title: 'Port', placeholder: 8787, description: 'Empty: 8787 (in demo mode: a free port).' })),
          public_url: Type.Optional(
            Type.String({
              format: 'uri',
              pattern: '^https?://',
              'x-hint': 'an address that starts with http:// or https://',
              title: 'Public URL',
              description: 'The address people and apps use, e.g. https://locks.example.org behind a proxy. Links in invitations, the web app and redirects use it.',
            }),
          ),
          /** More `Host` names the service answers (docs/design.md §9b); `*.example.org` for a whole domain. */
          allowed_hosts: Type.Optional(
            Type.Array(Type.String({ minLength: 1, pattern: '^(\\*\\.)?[^\\s/@*]+$', 'x-hint': 'a host name like homebridge.example.lan or *.example.org', title: 'Host name' }), {
              title: 'Other host names',
              description:
                'Names this service is also reached by (e.g. homebridge.example.lan, *.example.org). Loopback, this host\'s names and addresses, and the public URL\'s host are always allowed; any other Host is refused (421).',
            }),
          ),
          /** Reverse proxies whose X-Forwarded-* headers are believed: the proxy's own address (a range is warned about: docs/remote-access.md). */
          trusted_proxies: Type.Optional(
            Type.Array(Type.String({ minLength: 1, pattern: '^[0-9A-Fa-f:.]+(/\\d{1,3})?$', 'x-hint': 'an address or range like 192.168.1.10 or 10.0.0.0/24', title: 'Proxy address' }), {
              title: 'Trusted reverse proxies',
              description: 'The address of your reverse proxy (e.g. 127.0.0.1, 192.168.1.10), never a range of your network: every device in a range could claim any client address. X-Forwarded-For/-Proto/-Host are believed only from these.',
            }),
          ),
          token_ttl_s: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400, title: 'Access token lifetime (s)', placeholder: 3600 })),
          oauth_rate_limit_per_minute: Type.Optional(Type.Integer({ minimum: 1, title: 'OAuth requests per minute per address', placeholder: 60 })),
        },
        { additionalProperties: false, title: 'REST API' },
      ),
    ),
    clients: Type.Optional(Type.Array(ClientConfigSchema, { title: 'OAuth clients' })),
    users: Type.Optional(Type.Array(UserPolicyConfigSchema, { title: 'User policies' })),
    bluetooth: Type.Optional(
      Type.Object(
        {
          transport: Type.Optional(
            Type.Unsafe<TransportKindId>(
              Type.Union(
                TRANSPORT_KINDS.map((kind) => Type.Literal(kind.id, { title: kind.formTitle })),
                {
                  title: 'Transport',
                  'x-unset': DEFAULT_TRANSPORT_KIND,
                  description: 'Empty: BlueZ, the host\'s Bluetooth.',
                },
              ),
            ),
          ),
          adapter: Type.Optional(Type.String({ title: 'Adapter', placeholder: 'hci0' })),
          offline_after_s: Type.Optional(Type.Integer({ minimum: 5, title: 'Offline after (s) without contact', placeholder: 120 })),
          command_timeout_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 120, title: 'Command timeout (s)', placeholder: 15 })),
          /** docs/design.md §4e: also reach locks through the host's own adapter (default true); off: proxies only, no D-Bus needed. */
          use_host_adapter: Type.Optional(
            Type.Boolean({
              default: true,
              title: 'Use this host\'s Bluetooth adapter',
              description: 'Off: locks are reached through the Bluetooth proxies below only, and no D-Bus or BlueZ is needed (Homebridge in a container).',
            }),
          ),
          /** docs/design.md §4e: ESPHome Bluetooth proxies that reach locks out of the host's range. */
          proxies: Type.Optional(
            Type.Array(ProxyConfigSchema, {
              title: 'Bluetooth proxies',
              description: 'ESP32 boards running ESPHome with bluetooth_proxy: active: true, each a gateway to the locks near it (docs/gateways.md).',
            }),
          ),
        },
        { additionalProperties: false, title: 'Bluetooth' },
      ),
    ),
    smtp: Type.Optional(
      Type.Object(
        {
          host: Type.String({ title: 'SMTP host' }),
          port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, title: 'Port', placeholder: 587, description: 'Empty: 587, or 465 with TLS from the start.' })),
          secure: Type.Optional(Type.Boolean({ default: false, title: 'TLS from the start (port 465)' })),
          user: Type.Optional(Type.String({ title: 'User' })),
          password: Type.Optional(Type.String({ title: 'Password', ...Password })),
          from: Type.String({ title: 'From address' }),
        },
        {
          additionalProperties: false,
          title: 'E-mail (invitations)',
          description: 'Without an SMTP host and a From address, invitation links are written to the log instead of mailed.',
        },
      ),
    ),
    homekit: Type.Optional(
      Type.Object(
        {
          user_email: Type.Optional(
            Email({
              title: 'Act in HomeKit as (e-mail)',
              placeholder: 'each lock\'s owner',
              description:
                'Locking and unlocking from the Home app, Siri and automations runs as this user, with this user\'s eKey rules, and appears in the event history under this name. Empty: each lock\'s owner.',
            }),
          ),
          low_battery_threshold: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 1,
              title: 'Low battery below (0–1)',
              placeholder: 0.2,
              description: 'HomeKit shows "Low Battery" when the lock\'s battery is below this level (0.2 = 20 %).',
            }),
          ),
          arrival_triggers: Type.Optional(
            Type.Array(Email({ title: 'E-mail of a user' }), {
              title: 'Arrival triggers',
              description:
                'For each person listed, every lock gets a "<lock> <name> Arrived" button that HomeKit presses when that person unlocks the lock by tapping it. Use it to start automations for who came home.',
            }),
          ),
          /**
           * docs/design.md §4d: on locks that can unlatch, `off` (default), `separate` (a second lock
           * service "Open <lock>" whose unlock unlatches) or `on_unlock` (every HomeKit unlock unlatches).
           */
          unlatch: Type.Optional(
            Type.Union(
              [
                Type.Literal('off', { title: 'Off: unlock only unlocks' }),
                Type.Literal('separate', { title: 'Separate: an extra "Open <lock>" lock whose unlock pulls the latch' }),
                Type.Literal('on_unlock', { title: 'On unlock: every HomeKit unlock pulls the latch' }),
              ],
              {
                title: 'Open the door (unlatch) from HomeKit',
                'x-unset': 'off',
                description: 'Empty: off. Only for locks that can unlatch (Nuki Smart Lock). Unlatching pulls the latch so the door swings open (docs/homekit.md).',
              },
            ),
          ),
        },
        { additionalProperties: false, title: 'HomeKit' },
      ),
    ),
    mqtt: Type.Optional(MqttConfigSchema),
    events: Type.Optional(
      Type.Object(
        {
          /** Events recorded more than this many days ago are pruned in the background. */
          max_age_days: Type.Optional(Type.Integer({ minimum: 1, title: 'Keep events for (days; empty = forever)' })),
          /** Only the newest this-many events of each lock are kept. */
          max_per_lock: Type.Optional(Type.Integer({ minimum: 1, title: 'Keep at most this many events per lock (empty = no limit)' })),
        },
        { additionalProperties: false, title: 'Event history' },
      ),
    ),
  },
  // Homebridge adds its own keys (e.g. `_bridge`), so unknown top-level keys are tolerated.
  { additionalProperties: true },
);

export type PluginConfig = Omit<Static<typeof PluginConfigSchema>, 'locks'> & { locks?: LockConfig[] };
/**
 * One `locks[]` entry. Its families' own fields are typed `unknown` (they come from the families'
 * descriptors at run time): the family that declares a field reads it (src/families/lock-family-module.ts).
 */
export type LockConfig = Static<typeof LockConfigSchema> & { readonly [familyField: string]: unknown };
export type ClientConfig = Static<typeof ClientConfigSchema>;
export type ProxyConfig = Static<typeof ProxyConfigSchema>;
