/*
 * The keys Home Assistant's MQTT integration accepts in a device-based discovery message, written
 * out from its own voluptuous schemas (home-assistant/core, homeassistant/components/mqtt/):
 * schemas.py (`DEVICE_DISCOVERY_SCHEMA`, `MQTT_ENTITY_COMMON_SCHEMA`, the availability schemas,
 * `MQTT_ENTITY_DEVICE_INFO_SCHEMA`, `MQTT_ORIGIN_INFO_SCHEMA`), config.py (`MQTT_RO_SCHEMA`,
 * `MQTT_RW_SCHEMA`) and each platform's `PLATFORM_SCHEMA_MODERN` in lock.py, sensor.py,
 * binary_sensor.py, event.py and switch.py; the abbreviations from abbreviations.py. Every
 * platform's `DISCOVERY_SCHEMA` is built with `extra=vol.REMOVE_EXTRA`: Home Assistant drops an
 * unknown key without a word, which is why the discovery test holds every key we send to these
 * lists instead of trusting that Home Assistant would complain.
 */

/** `MQTT_AVAILABILITY_SCHEMA` (single and list forms). */
const AVAILABILITY = ['availability_topic', 'availability_template', 'payload_available', 'payload_not_available', 'availability_mode', 'availability'];

/** `MQTT_ENTITY_COMMON_SCHEMA` beyond availability, plus `platform` (device discovery). */
const ENTITY_COMMON = [
  ...AVAILABILITY,
  'device',
  'origin',
  'enabled_by_default',
  'entity_category',
  'entity_picture',
  'icon',
  'json_attributes_topic',
  'json_attributes_template',
  'object_id',
  'default_entity_id',
  'unique_id',
  'platform',
];

/** config.py `SCHEMA_BASE`. */
const BASE = ['qos', 'encoding'];
/** config.py `MQTT_RO_SCHEMA`: `state_topic` required. */
const READ_ONLY = [...BASE, 'state_topic', 'value_template'];
/** config.py `MQTT_RW_SCHEMA`: `command_topic` required. */
const READ_WRITE = [...BASE, 'command_topic', 'optimistic', 'retain', 'state_topic'];

export interface PlatformSchema {
  allowed: ReadonlySet<string>;
  required: readonly string[];
}

const platform = (keys: string[], required: string[]): PlatformSchema => ({ allowed: new Set([...keys, ...ENTITY_COMMON]), required: ['platform', 'unique_id', ...required] });

/** The platforms our device message uses. */
export const HOME_ASSISTANT_PLATFORMS: Readonly<Record<string, PlatformSchema>> = {
  lock: platform(
    [
      ...READ_WRITE,
      'code_format',
      'command_template',
      'name',
      'payload_lock',
      'payload_unlock',
      'payload_open',
      'payload_reset',
      'state_jammed',
      'state_locked',
      'state_locking',
      'state_open',
      'state_opening',
      'state_unlocked',
      'state_unlocking',
      'value_template',
    ],
    ['command_topic'],
  ),
  sensor: platform(
    [...READ_ONLY, 'device_class', 'expire_after', 'force_update', 'last_reset_value_template', 'name', 'options', 'suggested_display_precision', 'state_class', 'unit_of_measurement'],
    ['state_topic'],
  ),
  binary_sensor: platform([...READ_ONLY, 'device_class', 'expire_after', 'force_update', 'name', 'off_delay', 'payload_off', 'payload_on'], ['state_topic']),
  event: platform([...READ_ONLY, 'device_class', 'name', 'event_types'], ['state_topic', 'event_types']),
  switch: platform([...READ_WRITE, 'device_class', 'name', 'payload_off', 'payload_on', 'state_off', 'state_on', 'value_template'], ['command_topic']),
};

/** The root of a device message (schemas.py `DEVICE_DISCOVERY_SCHEMA`): `~` is not among them. */
export const DEVICE_MESSAGE_ROOT: PlatformSchema = {
  allowed: new Set([...AVAILABILITY, 'device', 'components', 'origin', 'state_topic', 'command_topic', 'message_expiry_interval', 'qos', 'encoding']),
  required: ['device', 'components', 'origin'],
};

/** `MQTT_ENTITY_DEVICE_INFO_SCHEMA`: at least one of identifiers and connections. */
export const DEVICE_KEYS: ReadonlySet<string> = new Set([
  'identifiers',
  'connections',
  'manufacturer',
  'model',
  'model_id',
  'name',
  'hw_version',
  'serial_number',
  'sw_version',
  'via_device',
  'suggested_area',
  'configuration_url',
]);

/** `MQTT_ORIGIN_INFO_SCHEMA`: `name` required. */
export const ORIGIN_KEYS: ReadonlySet<string> = new Set(['name', 'sw_version', 'support_url']);

/** abbreviations.py: the root's and a component's abbreviations we may meet (`ABBREVIATIONS`). */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  dev: 'device',
  o: 'origin',
  cmps: 'components',
  p: 'platform',
  avty: 'availability',
  avty_mode: 'availability_mode',
  avty_t: 'availability_topic',
  cmd_t: 'command_topic',
  stat_t: 'state_topic',
  json_attr_t: 'json_attributes_topic',
  uniq_id: 'unique_id',
  dev_cla: 'device_class',
  unit_of_meas: 'unit_of_measurement',
  stat_cla: 'state_class',
  ent_cat: 'entity_category',
  val_tpl: 'value_template',
  pl_lock: 'payload_lock',
  pl_unlk: 'payload_unlock',
  pl_open: 'payload_open',
  pl_on: 'payload_on',
  pl_off: 'payload_off',
  opt: 'optimistic',
  ret: 'retain',
  t: 'topic',
};

/** abbreviations.py `DEVICE_ABBREVIATIONS`. */
export const DEVICE_ABBREVIATIONS: Readonly<Record<string, string>> = {
  cns: 'connections',
  cu: 'configuration_url',
  hw: 'hw_version',
  ids: 'identifiers',
  mdl: 'model',
  mdl_id: 'model_id',
  mf: 'manufacturer',
  name: 'name',
  sa: 'suggested_area',
  sn: 'serial_number',
  sw: 'sw_version',
};

/** abbreviations.py `ORIGIN_ABBREVIATIONS`. */
export const ORIGIN_ABBREVIATIONS: Readonly<Record<string, string>> = { name: 'name', sw: 'sw_version', url: 'support_url' };

/** The keys of `object`, each written out in full by `abbreviations`. */
export function expandKeys(object: Record<string, unknown>, abbreviations: Readonly<Record<string, string>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [abbreviations[key] ?? key, value]));
}

/** Home Assistant's event device classes (homeassistant/components/event `EventDeviceClass`). */
export const EVENT_DEVICE_CLASSES = ['button', 'doorbell', 'motion'];
