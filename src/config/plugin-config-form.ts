import { LOCK_FAMILIES } from '../families/registry.js';

/**
 * The Homebridge UI's form around the config schema: config.schema.json is this object with the
 * schema of plugin-config-schema.ts in the form's dialect (scripts/config-files.mjs writes it).
 *
 * The layout names every field the form may edit; the form drops on Save what it cannot show (a
 * map such as `locks[].nuki_users` written as name → e-mail: the settings page hands the form the
 * list shape instead, test/e2e/settings-ui/homebridge-ui-save.test.ts). Arrays sit directly in their expandable section: the section's
 * title is their heading (a titled array inside a titled fieldset showed the word twice). A number
 * with both a minimum and a maximum is a slider in the form unless its layout says `number`: a port
 * or a lifetime is typed, not dragged.
 */

/**
 * The layout of a lock family's own fields (src/families/<family>/<family>-family.ts
 * `configFields`), after the fields every lock has: a field the form edits as a list (its
 * `x-form-choice` shape, e.g. a Nuki's linked users) gets its entries' fields and the family's
 * `x-add-button` words.
 */
function familyFieldLayout(): unknown[] {
  const layout = new Map<string, unknown>();
  for (const family of LOCK_FAMILIES) {
    for (const [name, schema] of Object.entries(family.configFields)) {
      const choice = schema['x-form-choice'];
      const shape = (typeof choice === 'number' && Array.isArray(schema.anyOf) ? schema.anyOf[choice] : schema) as { type?: unknown; items?: { properties?: Record<string, unknown> } };
      if (shape.type === 'array' && shape.items?.properties !== undefined) {
        const buttonText = typeof schema['x-add-button'] === 'string' ? schema['x-add-button'] : 'Add';
        layout.set(name, { key: `locks[].${name}`, type: 'array', buttonText, items: Object.keys(shape.items.properties).map((item) => `locks[].${name}[].${item}`) });
      } else {
        layout.set(name, `locks[].${name}`);
      }
    }
  }
  return [...layout.values()];
}

/** A number field typed as a number (see above). */
const numberField = (key: string): { key: string; type: 'number' } => ({ key, type: 'number' });
export const CONFIG_FORM = {
  pluginAlias: 'EKeyLocks',
  pluginType: 'platform',
  singular: true,
  customUi: true,
  customUiPath: './homebridge-ui',
  headerDisplay: 'Self-hosted smart-lock access: eKeys, an OAuth 2.0 REST API, Bluetooth LE locks, and every lock in the Home app.',
  footerDisplay: 'Users are created with `ekey-locks user add`; OAuth clients with `ekey-locks client add` or the Clients section.',
  layout: [
    'name',
    'demo',
    'matter',
    {
      type: 'fieldset',
      title: 'Locks',
      expandable: true,
      expanded: true,
      items: [
        {
          key: 'locks',
          type: 'array',
          notitle: true,
          buttonText: 'Add lock',
          items: ['locks[].name', 'locks[].family', 'locks[].owner_email', 'locks[].address', ...familyFieldLayout(), 'locks[].keypad', 'locks[].time_zone', 'locks[].gateway', { key: 'locks[].gateways', type: 'array', buttonText: 'Add gateway', items: ['locks[].gateways[]'] }, 'locks[].id'],
        },
      ],
    },
    {
      type: 'fieldset',
      title: 'REST API',
      expandable: true,
      items: [
        'api.host',
        numberField('api.port'),
        'api.public_url',
        { key: 'api.allowed_hosts', type: 'array', buttonText: 'Add host name', items: ['api.allowed_hosts[]'] },
        { key: 'api.trusted_proxies', type: 'array', buttonText: 'Add proxy address', items: ['api.trusted_proxies[]'] },
        numberField('api.token_ttl_s'),
        'api.oauth_rate_limit_per_minute',
      ],
    },
    {
      type: 'fieldset',
      title: 'OAuth clients',
      expandable: true,
      items: [
        {
          key: 'clients',
          type: 'array',
          notitle: true,
          buttonText: 'Add client',
          items: ['clients[].name', 'clients[].client_id', 'clients[].client_secret', 'clients[].redirect_uris', 'clients[].public'],
        },
      ],
    },
    {
      type: 'fieldset',
      title: 'User policies',
      expandable: true,
      items: [{ key: 'users', type: 'array', notitle: true, buttonText: 'Add policy', items: ['users[].email', 'users[].ekey_quota', 'users[].can_send_ekeys'] }],
    },
    {
      type: 'fieldset',
      title: 'Bluetooth',
      expandable: true,
      items: [
        'bluetooth.transport',
        'bluetooth.adapter',
        'bluetooth.offline_after_s',
        numberField('bluetooth.command_timeout_s'),
        'bluetooth.use_host_adapter',
        {
          key: 'bluetooth.proxies',
          type: 'array',
          buttonText: 'Add proxy',
          items: ['bluetooth.proxies[].name', 'bluetooth.proxies[].host', numberField('bluetooth.proxies[].port'), 'bluetooth.proxies[].encryption_key'],
        },
      ],
    },
    {
      type: 'fieldset',
      title: 'E-mail (invitations)',
      expandable: true,
      items: ['smtp.host', numberField('smtp.port'), 'smtp.secure', 'smtp.user', 'smtp.password', 'smtp.from'],
    },
    {
      type: 'fieldset',
      title: 'HomeKit',
      description: 'Every lock appears in the Home app with its bolt state, battery and jams.',
      expandable: true,
      items: [
        'homekit.user_email',
        numberField('homekit.low_battery_threshold'),
        { key: 'homekit.arrival_triggers', type: 'array', buttonText: 'Add person', items: ['homekit.arrival_triggers[]'] },
        'homekit.unlatch',
      ],
    },
    {
      type: 'fieldset',
      title: 'MQTT (Home Assistant)',
      description: 'Every lock on an MQTT broker, announced to Home Assistant (docs/home-assistant.md). The settings page can test the connection.',
      expandable: true,
      items: ['mqtt.url', 'mqtt.username', 'mqtt.password', 'mqtt.base_topic', 'mqtt.discovery', 'mqtt.discovery_prefix', 'mqtt.acting_user', 'mqtt.ca', 'mqtt.protocol_version', 'mqtt.client_id'],
    },
    { type: 'fieldset', title: 'Event history', expandable: true, items: ['events.max_age_days', 'events.max_per_lock'] },
  ],
};
