/**
 * The settings page's "Test connection" (docs/home-assistant.md): the form's MQTT section, unsaved,
 * tried against a real Mosquitto with a password file — one sentence either way.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testMqttConnection } from '../../../src/mqtt/mqtt-connection-test.js';
import { startMosquitto, type MosquittoBroker } from '../../support/mosquitto-broker.js';

describe('MQTT: Test connection', () => {
  let broker: MosquittoBroker;
  beforeAll(async () => {
    broker = await startMosquitto();
  });
  afterAll(async () => {
    await broker.close();
  });

  it('says it connected, over MQTT 3.1.1 and MQTT 5', async () => {
    expect(await testMqttConnection({ url: broker.url, username: broker.username, password: broker.password })).toEqual({
      ok: true,
      message: `Connected to ${broker.url} (MQTT 3.1.1) as ${broker.username}.`,
    });
    expect(await testMqttConnection({ url: broker.url, username: broker.username, password: broker.password, protocol_version: '5' })).toMatchObject({ ok: true, message: expect.stringContaining('(MQTT 5)') });
  });

  it('says the password was refused, without repeating it', async () => {
    const result = await testMqttConnection({ url: broker.url, username: broker.username, password: 'not-the-password' });
    expect(result).toEqual({ ok: false, message: `The broker at ${broker.url} refused the user name or password (not authorized).` });
  });

  it('says nobody listens, and what is wrong with the form\'s values before trying', async () => {
    const dead = await startMosquitto();
    const url = dead.url;
    await dead.close();
    expect(await testMqttConnection({ url })).toEqual({ ok: false, message: `No broker answered at ${url} (connection refused).` });
    expect((await testMqttConnection({ url: 'http://broker.local' })).message).toMatch(/^MQTT \(Home Assistant\) \(mqtt\) is left out: mqtt\.url: "http:\/\/broker\.local" is not an address like mqtt:/);
    expect(await testMqttConnection(undefined)).toEqual({ ok: false, message: 'Fill in the broker URL first (for example mqtt://homeassistant.local:1883).' });
  });
});
