/**
 * A command left retained on a `set` topic (someone published it with the retain flag) reaches the
 * service again at every connect: it is never obeyed, only logged (docs/home-assistant.md). The
 * MQTT view runs on a port in memory here, against a real Mosquitto.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MqttLocks } from '../../../src/mqtt/mqtt-locks.js';
import { mqttSettingsOf } from '../../../src/mqtt/mqtt-settings.js';
import { InMemoryLockPort, testLock } from '../../support/in-memory-lock-port.js';
import { startMosquitto, watchBroker, type MosquittoBroker } from '../../support/mosquitto-broker.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { until } from '../../support/polling.js';

const LOCK_ID = '7a1f0c3e-2b4d-4e6f-8a9b-0c1d2e3f4a5b';

describe('MQTT: retained commands', () => {
  let broker: MosquittoBroker;
  beforeAll(async () => {
    broker = await startMosquitto();
  });
  afterAll(async () => {
    await broker.close();
  });

  it('ignores a retained LOCK found at connect with one line; a live UNLOCK after it runs', async () => {
    const home = await watchBroker(broker, ['retained-site/#', 'homeassistant/#']);
    await home.client.publishAsync(`retained-site/${LOCK_ID}/set`, 'LOCK', { qos: 1, retain: true });
    const port = new InMemoryLockPort([testLock({ id: LOCK_ID, bolt: 'unlocked' })]);
    const logger = new RecordingLogger();
    const settings = mqttSettingsOf({ mqtt: { url: broker.url, username: broker.username, password: broker.password, base_topic: 'retained-site', discovery: false } });
    if (settings === undefined) throw new Error('no settings');
    const mqtt = new MqttLocks({ port, settings, logger, origin: { name: 'test', sw: '0', url: 'https://example.org' }, lowBatteryThreshold: 0.2 });
    try {
      await mqtt.start();
      await until(() => logger.lines.some((line) => line.message.includes('retained message is never obeyed')), 'the retained line');
      await home.client.publishAsync(`retained-site/${LOCK_ID}/set`, 'UNLOCK', { qos: 1 });
      await home.next((m) => m.topic === `retained-site/${LOCK_ID}/command_result`, 'the UNLOCK result');
      expect(port.requests.map((request) => request.type)).toEqual(['unlock']);
      expect(logger.lines.filter((line) => line.message.includes('retained message is never obeyed'))).toHaveLength(1);
      // With discovery off, nothing goes to Home Assistant's prefix.
      expect(home.messages.some((m) => m.topic.startsWith('homeassistant/'))).toBe(false);
    } finally {
      await mqtt.stop();
      await home.client.publishAsync(`retained-site/${LOCK_ID}/set`, '', { qos: 1, retain: true });
      await home.close();
    }
  });
});
