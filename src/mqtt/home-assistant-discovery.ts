import { toManufacturer, toModel, toSerialNumber } from '../lock-port/lock-identity.js';
import type { PortLock } from '../lock-port/lock-port.js';
import type { MqttTopics } from './mqtt-topics.js';

/*
 * Home Assistant's MQTT discovery, device-based (Home Assistant 2024.11 and later; docs/home-assistant.md):
 * one retained message per lock on `<discovery_prefix>/device/<node_id>/config` holding the device
 * (`dev`), who announced it (`o`) and its components (`cmps`), each with the platform (`p`) and a
 * unique id made from the node id, so renaming a lock or upgrading the plugin never makes a second
 * entity. The keys are Home Assistant's: the abbreviations its own example uses for `dev`, `o`,
 * `cmps` and `p`, and full names elsewhere; test/unit/mqtt/home-assistant-discovery.test.ts holds
 * every key to Home Assistant's schemas for the platforms used. No `~` anywhere: Home Assistant
 * refuses it at the root of a device message.
 */

/** Who announces the devices (`o`). */
export interface DiscoveryOrigin {
  name: string;
  /** The plugin's version. */
  sw: string;
  /** Where its users find help. */
  url: string;
}

/** The event types of the lock's activity entity (docs/design.md §11: who and how). */
export const ACTIVITY_EVENT_TYPES = ['locked', 'unlocked', 'jammed'] as const;

/**
 * The device message of one lock: the lock, its battery, its door sensor where it has one, an event
 * entity for what happened and who did it, and on an Opener its ring and its two mode switches.
 * `configurationUrl`: the web app, shown as the device's "Visit" link.
 */
export function deviceDiscovery(lock: PortLock, topics: MqttTopics, origin: DiscoveryOrigin, configurationUrl?: string): Record<string, unknown> {
  const node = topics.nodeId(lock.id);
  const id = (component: string): string => `${node}_${component}`;
  const components: Record<string, Record<string, unknown>> = {
    lock: {
      p: 'lock',
      unique_id: id('lock'),
      name: null,
      command_topic: topics.set(lock.id),
      state_topic: topics.state(lock.id),
      payload_lock: 'LOCK',
      payload_unlock: 'UNLOCK',
      // Only where the lock can pull its latch: the entity then offers "Open".
      ...(lock.commands.includes('unlatch') ? { payload_open: 'OPEN' } : {}),
      json_attributes_topic: topics.attributes(lock.id),
      optimistic: false,
      retain: false,
    },
    battery: {
      p: 'sensor',
      unique_id: id('battery'),
      name: 'Battery',
      device_class: 'battery',
      unit_of_measurement: '%',
      state_class: 'measurement',
      entity_category: 'diagnostic',
      state_topic: topics.attributes(lock.id),
      value_template: '{{ value_json.battery }}',
    },
    activity: {
      p: 'event',
      unique_id: id('activity'),
      name: 'Activity',
      event_types: [...ACTIVITY_EVENT_TYPES],
      state_topic: topics.event(lock.id),
      // A ring goes to the ring entity; an empty result is ignored by Home Assistant.
      value_template: "{{ value if value_json.event_type != 'ring' else '' }}",
    },
  };
  if (lock.capabilities.doorSensor) {
    components.door = {
      p: 'binary_sensor',
      unique_id: id('door'),
      name: 'Door',
      device_class: 'door',
      state_topic: topics.attributes(lock.id),
      value_template: "{{ {'open': 'ON', 'closed': 'OFF'}.get(value_json.door, 'None') }}",
      payload_on: 'ON',
      payload_off: 'OFF',
    };
  }
  if (lock.capabilities.opener) {
    components.ring = {
      p: 'event',
      unique_id: id('ring'),
      name: 'Ring',
      device_class: 'doorbell',
      event_types: ['ring'],
      state_topic: topics.event(lock.id),
      value_template: "{{ value if value_json.event_type == 'ring' else '' }}",
    };
    components.ring_to_open = modeSwitch(lock, topics, id('ring_to_open'), 'Ring to Open', 'ring_to_open');
    components.continuous_mode = modeSwitch(lock, topics, id('continuous_mode'), 'Continuous Mode', 'continuous_mode');
  }
  const firmware = lock.deviceInformation?.firmware;
  return {
    dev: {
      ids: [node],
      name: lock.name,
      mf: toManufacturer(lock),
      mdl: toModel(lock),
      sn: toSerialNumber(lock),
      ...(firmware === undefined || firmware === '' ? {} : { sw: firmware }),
      ...(configurationUrl === undefined ? {} : { cu: configurationUrl }),
    },
    o: { name: origin.name, sw: origin.sw, url: origin.url },
    cmps: components,
    // Shared by every component: the service is up and the lock can be reached.
    availability: [{ topic: topics.status() }, { topic: topics.availability(lock.id) }],
    availability_mode: 'all',
    qos: 1,
  };
}

function modeSwitch(lock: PortLock, topics: MqttTopics, uniqueId: string, name: string, mode: 'ring_to_open' | 'continuous_mode'): Record<string, unknown> {
  return {
    p: 'switch',
    unique_id: uniqueId,
    name,
    command_topic: topics.modeSet(lock.id, mode),
    state_topic: topics.mode(lock.id, mode),
    payload_on: 'ON',
    payload_off: 'OFF',
    optimistic: false,
    retain: false,
  };
}
