import { randomBytes } from 'node:crypto';
import type { PluginConfig } from '../config/plugin-config.js';

/** The `mqtt` section as the adapter runs it, every default applied (docs/design.md §11, docs/configuration.md). */
export interface MqttSettings {
  /** `mqtt://host:1883` or `mqtts://host:8883` (credentials in it are taken, never logged). */
  url: string;
  username: string | undefined;
  /** A secret: never logged, never echoed. */
  password: string | undefined;
  /** Root of every topic of this site (default `ekey-locks`). */
  baseTopic: string;
  /** Announce the locks to Home Assistant (default true). */
  discovery: boolean;
  /** Home Assistant's discovery prefix (default `homeassistant`). */
  discoveryPrefix: string;
  /** Commands from MQTT run as this user (an owner or admin of the lock); undefined: each lock's owner. */
  actingUser: string | undefined;
  /** A CA certificate file (PEM) for `mqtts://` brokers with their own CA. */
  caFile: string | undefined;
  /** MQTT 3.1.1 (4) or 5. */
  protocolVersion: 4 | 5;
  clientId: string;
}

export const DEFAULT_BASE_TOPIC = 'ekey-locks';
export const DEFAULT_DISCOVERY_PREFIX = 'homeassistant';

/** The MQTT settings of a checked config; undefined when `mqtt` is absent (MQTT is off). */
export function mqttSettingsOf(config: PluginConfig): MqttSettings | undefined {
  const mqtt = config.mqtt;
  if (mqtt === undefined) return undefined;
  const baseTopic = mqtt.base_topic ?? DEFAULT_BASE_TOPIC;
  return {
    url: mqtt.url,
    username: mqtt.username,
    password: mqtt.password,
    baseTopic,
    discovery: mqtt.discovery ?? true,
    discoveryPrefix: mqtt.discovery_prefix ?? DEFAULT_DISCOVERY_PREFIX,
    actingUser: mqtt.acting_user,
    caFile: mqtt.ca,
    protocolVersion: mqtt.protocol_version === '5' ? 5 : 4,
    // Unique per run: two services on one broker never take each other's session.
    clientId: mqtt.client_id ?? `${baseTopic.replace(/[^A-Za-z0-9_-]/g, '_')}-${randomBytes(4).toString('hex')}`,
  };
}

/** The broker's address for a log line or a sentence: scheme, host and port, never credentials. */
export function brokerAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'the configured broker';
  }
}
