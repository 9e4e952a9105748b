/**
 * Home Assistant's device message of each lock (docs/design.md §11, docs/home-assistant.md), held
 * key by key to Home Assistant's own schemas for lock, sensor, binary_sensor, event and switch
 * (test/support/home-assistant-schemas.ts): Home Assistant drops a key it does not know in silence,
 * so a typo here would be a feature silently missing there.
 */
import { describe, expect, it } from '@jest/globals';
import { deviceDiscovery } from '../../../src/mqtt/home-assistant-discovery.js';
import { MqttTopics } from '../../../src/mqtt/mqtt-topics.js';
import { testLock } from '../../support/in-memory-lock-port.js';
import type { PortLock } from '../../../src/lock-port/lock-port.js';
import {
  ABBREVIATIONS,
  DEVICE_ABBREVIATIONS,
  DEVICE_KEYS,
  DEVICE_MESSAGE_ROOT,
  EVENT_DEVICE_CLASSES,
  HOME_ASSISTANT_PLATFORMS,
  ORIGIN_ABBREVIATIONS,
  ORIGIN_KEYS,
  expandKeys,
} from '../../support/home-assistant-schemas.js';

type Json = Record<string, unknown>;
const LOCK_ID = '5d0c6a52-0f1e-4d8a-9a53-3b0d7c1e2f40';
const topics = new MqttTopics('ekey-locks', 'homeassistant');
const origin = { name: 'homebridge-ekey-locks', sw: '0.1.0', url: 'https://example.org/help' };

const message = (family: string, overrides: Partial<PortLock> = {}): Json =>
  deviceDiscovery(testLock({ id: LOCK_ID, family, ...overrides }), topics, origin, 'http://homebridge.local:8787/app/');

const components = (root: Json): Record<string, Json> => {
  const full = expandKeys(root, ABBREVIATIONS);
  return Object.fromEntries(Object.entries(full.components as Record<string, Json>).map(([name, component]) => [name, expandKeys(component, ABBREVIATIONS)]));
};

/** Every problem of a device message against Home Assistant's schemas, as sentences. */
function schemaProblems(root: Json): string[] {
  const problems: string[] = [];
  const full = expandKeys(root, ABBREVIATIONS);
  for (const key of Object.keys(full)) if (!DEVICE_MESSAGE_ROOT.allowed.has(key)) problems.push(`root: unknown key ${key}`);
  for (const key of DEVICE_MESSAGE_ROOT.required) if (!(key in full)) problems.push(`root: missing ${key}`);
  const device = expandKeys(full.device as Json, DEVICE_ABBREVIATIONS);
  for (const key of Object.keys(device)) if (!DEVICE_KEYS.has(key)) problems.push(`device: unknown key ${key}`);
  if (!Array.isArray(device.identifiers) || device.identifiers.length === 0) problems.push('device: no identifiers');
  const originKeys = expandKeys(full.origin as Json, ORIGIN_ABBREVIATIONS);
  for (const key of Object.keys(originKeys)) if (!ORIGIN_KEYS.has(key)) problems.push(`origin: unknown key ${key}`);
  if (typeof originKeys.name !== 'string') problems.push('origin: no name');
  for (const [name, component] of Object.entries(components(root))) {
    const schema = HOME_ASSISTANT_PLATFORMS[String(component.platform)];
    if (schema === undefined) {
      problems.push(`${name}: platform ${String(component.platform)} is not one we check`);
      continue;
    }
    for (const key of Object.keys(component)) if (!schema.allowed.has(key)) problems.push(`${name}: unknown key ${key} for ${String(component.platform)}`);
    // Shared at the root (schemas.py: availability, state and command topics, qos, encoding).
    for (const key of schema.required) if (!(key in component) && !(key in full)) problems.push(`${name}: missing ${key}`);
    if ('~' in component || Object.values(component).some((value) => typeof value === 'string' && value.includes('~'))) problems.push(`${name}: uses ~`);
  }
  return problems;
}

describe('Home Assistant device message', () => {
  it('holds only keys Home Assistant knows, and every key it requires, for every family', () => {
    for (const family of ['ekey', 'nuki', 'nuki-opener']) expect({ family, problems: schemaProblems(message(family)) }).toEqual({ family, problems: [] });
  });

  it('the schema check itself finds an unknown key, a missing unique_id and a ~ at the root', () => {
    const bad = message('ekey');
    const lock = (bad.cmps as Record<string, Json>).lock as Json;
    lock.payload_unlatch = 'OPEN';
    delete (bad.cmps as Record<string, Json>).battery?.unique_id;
    bad['~'] = 'ekey-locks/x';
    expect(schemaProblems(bad)).toEqual(['root: unknown key ~', 'lock: unknown key payload_unlatch for lock', 'battery: missing unique_id']);
  });

  it('names the device for the lock, with the origin and the web app as its link; ids made from the site and the lock', () => {
    const root = message('nuki', { name: 'Back Door', deviceInformation: { manufacturer: 'Nuki Home Solutions', model: 'Smart Lock 4th Gen', serial: 'X', firmware: '4.2.8' } });
    expect(root.dev).toEqual({
      ids: [`ekey-locks_${LOCK_ID}`],
      name: 'Back Door',
      mf: 'Nuki Home Solutions',
      mdl: 'Smart Lock 4th Gen',
      sn: expect.any(String),
      sw: '4.2.8',
      cu: 'http://homebridge.local:8787/app/',
    });
    expect(root.o).toEqual(origin);
    const ids = Object.values(components(root)).map((component) => component.unique_id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(new RegExp(`^ekey-locks_${LOCK_ID}_[a-z_]+$`));
  });

  it('is available only while the service is online and the lock reachable (both, not the latest)', () => {
    expect(message('ekey')).toMatchObject({
      availability: [{ topic: 'ekey-locks/status' }, { topic: `ekey-locks/${LOCK_ID}/availability` }],
      availability_mode: 'all',
    });
  });

  it('a lock of our profile: lock (no OPEN), battery, activity event; no door sensor, no switches', () => {
    const parts = components(message('ekey'));
    expect(Object.keys(parts).sort()).toEqual(['activity', 'battery', 'lock']);
    expect(parts.lock).toMatchObject({
      platform: 'lock',
      command_topic: `ekey-locks/${LOCK_ID}/set`,
      state_topic: `ekey-locks/${LOCK_ID}/state`,
      payload_lock: 'LOCK',
      payload_unlock: 'UNLOCK',
      json_attributes_topic: `ekey-locks/${LOCK_ID}/attributes`,
      optimistic: false,
      retain: false,
    });
    expect(parts.lock).not.toHaveProperty('payload_open');
    // Home Assistant's own lock states are what the state topic carries: no state_* overrides needed.
    for (const key of Object.keys(parts.lock ?? {})) expect(key.startsWith('state_') && key !== 'state_topic').toBe(false);
    expect(parts.battery).toMatchObject({ platform: 'sensor', device_class: 'battery', unit_of_measurement: '%', state_class: 'measurement', entity_category: 'diagnostic' });
    expect(parts.activity).toMatchObject({ platform: 'event', event_types: ['locked', 'unlocked', 'jammed'], state_topic: `ekey-locks/${LOCK_ID}/event` });
  });

  it('a Nuki Smart Lock: OPEN where it can unlatch, and its door sensor as a door binary_sensor', () => {
    const parts = components(message('nuki'));
    expect(parts.lock).toMatchObject({ payload_open: 'OPEN' });
    expect(parts.door).toMatchObject({ platform: 'binary_sensor', device_class: 'door', payload_on: 'ON', payload_off: 'OFF', state_topic: `ekey-locks/${LOCK_ID}/attributes` });
  });

  it('an Opener: a doorbell ring event and the two mode switches with their own command topics', () => {
    const parts = components(message('nuki-opener'));
    expect(parts.ring).toMatchObject({ platform: 'event', device_class: 'doorbell', event_types: ['ring'] });
    expect(EVENT_DEVICE_CLASSES).toContain(parts.ring?.device_class);
    expect(parts.ring_to_open).toMatchObject({
      platform: 'switch',
      command_topic: `ekey-locks/${LOCK_ID}/ring_to_open/set`,
      state_topic: `ekey-locks/${LOCK_ID}/ring_to_open`,
      payload_on: 'ON',
      payload_off: 'OFF',
      retain: false,
    });
    expect(parts.continuous_mode).toMatchObject({ platform: 'switch', command_topic: `ekey-locks/${LOCK_ID}/continuous_mode/set` });
    expect(parts.lock).not.toHaveProperty('payload_open');
  });

  it('keeps sites apart: another base topic makes other node ids and topics', () => {
    const other = deviceDiscovery(testLock({ id: LOCK_ID }), new MqttTopics('home/site-b', 'homeassistant'), origin);
    expect((other.dev as Json).ids).toEqual([`home_site-b_${LOCK_ID}`]);
    expect(components(other).lock).toMatchObject({ command_topic: `home/site-b/${LOCK_ID}/set` });
    expect(schemaProblems(other)).toEqual([]);
  });
});
