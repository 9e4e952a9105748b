import { afterEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createESPHomeHandshake, EspHomeClient } from 'esphome-client';
import { NoiseHandshake } from '../../src/gateway/transports/esphome/noise-handshake.js';
import { CONTRACT_COMMAND, CONTRACT_STATUS, ContractDevice } from '../support/contract-device.js';
import { FakeEsphomeProxy } from '../support/fake-esphome-proxy/fake-esphome-proxy.js';
import { uuidHalves } from '../../src/gateway/transports/esphome/esphome-messages.js';

/**
 * Our Noise handshake and our fake proxy held against an independent implementation of ESPHome's
 * native API: esphome-client 2.0.0 (a dev dependency only, docs/architecture.md "Libraries and
 * why"). It needs Node 22.20 or later (`npm test` on
 * Node 22, and on Node 24 in .ci/run). Its Noise responder and initiator complete handshakes with ours, and its client drives the
 * fake proxy — Hello, DeviceInfo, advertisements, connect, services, notifications with the CCCD,
 * writes — with and without Noise. So a fault shared by our transport and our fake cannot hide.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('our Noise_NNpsk0 against esphome-client\'s', () => {
  it('our initiator with its responder, and its initiator with our responder: the same keys each way', () => {
    const psk = randomBytes(32);
    const ours = new NoiseHandshake('initiator', psk);
    const theirs = createESPHomeHandshake({ role: 'responder', psk });
    theirs.readMessage(ours.writeMessage());
    ours.readMessage(theirs.writeMessage());
    const keys = ours.split();
    expect(theirs.isComplete).toBe(true);
    expect(theirs.receiveCipher?.DecryptWithAd(Buffer.alloc(0), keys.send.encrypt(Buffer.from('to the proxy'))).toString()).toBe('to the proxy');
    expect(keys.receive.decrypt(theirs.sendCipher?.EncryptWithAd(Buffer.alloc(0), Buffer.from('to the client')) ?? Buffer.alloc(0)).toString()).toBe('to the client');

    const initiator = createESPHomeHandshake({ role: 'initiator', psk });
    const responder = new NoiseHandshake('responder', psk);
    responder.readMessage(initiator.writeMessage());
    initiator.readMessage(responder.writeMessage());
    expect(initiator.isComplete).toBe(true);
    expect(responder.split().receive.decrypt(initiator.sendCipher?.EncryptWithAd(Buffer.alloc(0), Buffer.from('hi')) ?? Buffer.alloc(0)).toString()).toBe('hi');
  });
});

describe.each([
  ['Noise', randomBytes(32).toString('base64')],
  ['plaintext', undefined],
] as const)('esphome-client against the fake proxy (%s)', (_label, key) => {
  it('connects, hears the device, opens a link, subscribes with the CCCD, writes and gets the answer', async () => {
    const proxy = await FakeEsphomeProxy.start({ name: 'interop-proxy', ...(key === undefined ? {} : { encryptionKey: key }) });
    cleanups.push(() => proxy.stop());
    const device = new ContractDevice('E7:0B:00:00:00:01');
    proxy.addDevice(device, { rssi: -61 });
    const client = new EspHomeClient({ host: '127.0.0.1', port: proxy.port, psk: key ?? null, reconnect: false, clientId: 'interop-test' });
    cleanups.push(() => {
      client.disconnect();
    });
    await client.connect();
    expect(client.deviceInfo()?.name).toBe('interop-proxy');

    const ble = client.bluetooth;
    const abort = new AbortController();
    cleanups.push(() => {
      abort.abort();
    });
    const heard = await (async () => {
      for await (const advertisement of ble.advertisements({ signal: abort.signal })) {
        if (advertisement.address === 0xe70b00000001n) return advertisement;
      }
      return undefined;
    })();
    expect(heard?.rssi).toBe(-61);

    const state = await ble.connect(0xe70b00000001n, { timeoutMs: 5_000 });
    expect(state.connected).toBe(true);
    const services = await ble.getServices(0xe70b00000001n);
    const characteristics = services.flatMap((service) => service.characteristics);
    const handleOf = (uuid: string): number => {
      const [high, low] = uuidHalves(uuid);
      const found = characteristics.find((entry) => entry.uuid?.[0] === high && entry.uuid[1] === low);
      if (found === undefined) throw new Error(`no ${uuid}`);
      return found.handle;
    };
    const status = handleOf(CONTRACT_STATUS);
    const cccd = characteristics.find((entry) => entry.handle === status)?.descriptors.find((descriptor) => descriptor.shortUuid === 0x2902)?.handle;
    if (cccd === undefined) throw new Error('no CCCD');
    await ble.setNotify(0xe70b00000001n, status, true);
    await ble.writeDescriptor(0xe70b00000001n, cccd, Buffer.from([0x01, 0x00]));
    const notes = ble.notify(0xe70b00000001n, status, { signal: abort.signal });
    const answer = (async () => {
      for await (const note of notes) return note.data;
      return undefined;
    })();
    await ble.writeCharacteristic(0xe70b00000001n, handleOf(CONTRACT_COMMAND), Buffer.from([1, 2]), { response: true });
    expect(await answer).toEqual(Buffer.from([2, 1]));
    expect(device.writes).toEqual([Buffer.from([1, 2])]);
    expect(proxy.log.cccdWrites).toEqual(['0100']);
    abort.abort();
  });
});
