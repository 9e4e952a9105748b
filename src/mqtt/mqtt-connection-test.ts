import type { connectAsync as MqttConnectAsync } from 'mqtt';
import { checkPluginConfig } from '../config/plugin-config.js';
import { describeError } from '../domain/errors.js';
import { clientOptions, explainMqttError } from './mqtt-connection.js';
import { brokerAddress, mqttSettingsOf } from './mqtt-settings.js';

/** What the settings page's "Test connection" shows: whether it worked, in one sentence. */
export interface MqttConnectionTestResult {
  ok: boolean;
  message: string;
}

/**
 * Tries an `mqtt` section as the form holds it, unsaved (docs/home-assistant.md): the same check
 * as the config's (one sentence naming what is wrong), then one connection with its credentials,
 * TLS and protocol, closed at once. Publishes and subscribes nothing; never throws.
 */
export async function testMqttConnection(section: unknown, timeoutMs = 8_000): Promise<MqttConnectionTestResult> {
  if (section === undefined || section === null || (typeof section === 'object' && Object.keys(section).length === 0)) {
    return { ok: false, message: 'Fill in the broker URL first (for example mqtt://homeassistant.local:1883).' };
  }
  const check = checkPluginConfig({ mqtt: section });
  const settings = check.config === undefined ? undefined : mqttSettingsOf(check.config);
  if (settings === undefined) return { ok: false, message: check.problems[0] ?? 'The MQTT settings cannot be used.' };
  let connectAsync: typeof MqttConnectAsync;
  try {
    ({ connectAsync } = await import('mqtt'));
  } catch (error) {
    return { ok: false, message: `The mqtt client could not be loaded (${describeError(error)}). Reinstall the plugin.` };
  }
  try {
    const client = await connectAsync(settings.url, { ...clientOptions(settings, undefined), clientId: `${settings.clientId}-test`, connectTimeout: timeoutMs });
    const protocol = client.options.protocolVersion === 5 ? 'MQTT 5' : 'MQTT 3.1.1';
    await client.endAsync(true);
    return { ok: true, message: `Connected to ${brokerAddress(settings.url)} (${protocol})${settings.username === undefined ? '' : ` as ${settings.username}`}.` };
  } catch (error) {
    return { ok: false, message: explainMqttError(error, settings.url) };
  }
}
