import { afterEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { TransportError } from '../../../src/gateway/gatt-transport.js';
import { EsphomeTransport } from '../../../src/gateway/transports/esphome/esphome-transport.js';
import { CONTRACT_PROFILE, ContractDevice } from '../../support/contract-device.js';
import { FakeEsphomeProxy } from '../../support/fake-esphome-proxy/fake-esphome-proxy.js';
import { describeGattTransport } from '../../support/gatt-transport-contract.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { until } from '../../support/polling.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';

/**
 * The ESPHome transport alone against the fake proxy (test/support/fake-esphome-proxy/) over real
 * TCP on loopback: the shared transport contract, with Noise and in plaintext, then what is the
 * proxy's own (slots, the CCCD, unknown messages, drops, a wrong key).
 */

failOnUnhandledRejections();

const KEY = randomBytes(32).toString('base64');

describeGattTransport('EsphomeTransport (Noise)', async ({ operationTimeoutMs }) => {
  const proxy = await FakeEsphomeProxy.start({ encryptionKey: KEY, slots: 5 });
  const transport = new EsphomeTransport({ proxy: { name: 'Hall', host: '127.0.0.1', port: proxy.port, encryptionKey: KEY }, operationTimeoutMs });
  return {
    transport,
    add: (device) => {
      proxy.addDevice(device);
    },
    stallConnects: (address) => {
      proxy.stallConnects(address);
    },
    stallOperations: (address) => {
      proxy.stallOperations(address);
    },
    close: async () => {
      await transport.close();
      await proxy.stop();
    },
  };
});

describeGattTransport('EsphomeTransport (plaintext)', async ({ operationTimeoutMs }) => {
  const proxy = await FakeEsphomeProxy.start({ slots: 5 });
  const transport = new EsphomeTransport({ proxy: { name: 'Hall', host: '127.0.0.1', port: proxy.port }, operationTimeoutMs });
  return {
    transport,
    add: (device) => {
      proxy.addDevice(device);
    },
    stallConnects: (address) => {
      proxy.stallConnects(address);
    },
    stallOperations: (address) => {
      proxy.stallOperations(address);
    },
    close: async () => {
      await transport.close();
      await proxy.stop();
    },
  };
});

// ---- what is the proxy's own ----

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let nextAddress = 1;
function newDevice(proxy: FakeEsphomeProxy): ContractDevice {
  const device = new ContractDevice(`E5:0A:00:00:00:${(nextAddress++).toString(16).padStart(2, '0').toUpperCase()}`);
  proxy.addDevice(device);
  return device;
}

async function rig(options: { slots?: number; key?: string; transportKey?: string; featureFlags?: number } = {}): Promise<{ proxy: FakeEsphomeProxy; transport: EsphomeTransport; logger: RecordingLogger }> {
  const key = options.key === undefined ? KEY : options.key;
  const proxy = await FakeEsphomeProxy.start({ ...(key === '' ? {} : { encryptionKey: key }), slots: options.slots ?? 3, ...(options.featureFlags === undefined ? {} : { featureFlags: options.featureFlags }) });
  const logger = new RecordingLogger();
  const transportKey = options.transportKey ?? (key === '' ? undefined : key);
  const transport = new EsphomeTransport({
    proxy: { name: 'Hall', host: '127.0.0.1', port: proxy.port, ...(transportKey === undefined ? {} : { encryptionKey: transportKey }) },
    operationTimeoutMs: 1_000,
    backoff: { initialMs: 50, maxMs: 200 },
    unauthorizedRetryMs: 100,
    logger,
  });
  cleanups.push(async () => {
    await transport.close();
    await proxy.stop();
  });
  return { proxy, transport, logger };
}

const CONNECT = { timeoutMs: 5_000 };

describe('EsphomeTransport and the proxy', () => {
  it('writes the CCCD itself (0x0001 for a notifying characteristic): the proxy does not for V3 connections', async () => {
    const { proxy, transport } = await rig();
    const device = newDevice(proxy);
    const connection = await transport.connect(device.address, CONTRACT_PROFILE, CONNECT);
    expect(proxy.log.cccdWrites).toEqual(['0100']);
    const values: Buffer[] = [];
    connection.onNotification((_, value) => values.push(value));
    device.notify(Buffer.from([4]));
    await until(() => values.length === 1, 'the notification');
    await connection.disconnect();
  });

  it('respects the slots: with every slot taken the next connect fails no_free_slot at once, names the proxy, and leaks nothing', async () => {
    const { proxy, transport, logger } = await rig({ slots: 1 });
    const first = newDevice(proxy);
    const second = newDevice(proxy);
    const connection = await transport.connect(first.address, CONTRACT_PROFILE, CONNECT);
    await until(() => transport.radioStatus().connectionsFree === 0, 'the slot count to say 0 (proto3 leaves the field out)');
    let failure: unknown;
    try {
      await transport.connect(second.address, CONTRACT_PROFILE, CONNECT);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as TransportError).failure).toBe('no_free_slot');
    expect(logger.lines.some(({ message: line }) => line.includes('Proxy Hall has no free connection slot'))).toBe(true);
    expect(proxy.log.connectRequests).toBe(1);
    await connection.disconnect();
    await until(() => transport.radioStatus().connectionsFree === 1, 'the slot back');
    const again = await transport.connect(second.address, CONTRACT_PROFILE, CONNECT);
    expect(await again.read('info')).toEqual(Buffer.from('contract v1'));
    await again.disconnect();
  });

  it('a connect the proxy never answers ends in time, sends a disconnect, and the slot comes back', async () => {
    const { proxy, transport } = await rig({ slots: 1 });
    const silent = newDevice(proxy);
    proxy.stallConnects(silent.address);
    await expect(transport.connect(silent.address, CONTRACT_PROFILE, { timeoutMs: 500 })).rejects.toMatchObject({ failure: 'connect_failed' });
    await until(() => proxy.usedSlots === 0 && proxy.log.disconnectRequests === 1, 'the disconnect that frees the slot');
    const other = newDevice(proxy);
    const connection = await transport.connect(other.address, CONTRACT_PROFILE, CONNECT);
    await connection.disconnect();
  });

  it('writes without response too: the device gets the value, the proxy answers nothing', async () => {
    const { proxy, transport } = await rig();
    const device = newDevice(proxy);
    const connection = await transport.connect(device.address, CONTRACT_PROFILE, CONNECT);
    const answers: Buffer[] = [];
    connection.onNotification((_, value) => answers.push(value));
    await connection.writeWithoutResponse?.('command', Buffer.from([5, 6]));
    await until(() => device.writes.length === 1, 'the value at the device');
    expect(device.writes).toEqual([Buffer.from([5, 6])]);
    await until(() => answers.length === 1, "the device's own answer");
    await connection.disconnect();
    await expect(connection.writeWithoutResponse?.('command', Buffer.from([1]))).rejects.toMatchObject({ failure: 'not_connected' });
  });

  it('skips message ids it does not know and keeps the link', async () => {
    const { proxy, transport } = await rig();
    const device = newDevice(proxy);
    const connection = await transport.connect(device.address, CONTRACT_PROFILE, CONNECT);
    proxy.sendUnknownMessage(146);
    proxy.sendUnknownMessage(999);
    expect(await connection.read('info')).toEqual(Buffer.from('contract v1'));
    expect(connection.connected).toBe(true);
    expect(proxy.log.clients).toBe(1);
    await connection.disconnect();
  });

  it('holds one advertisement subscription for the whole session, whatever watchers come and go', async () => {
    const { proxy, transport } = await rig();
    const device = newDevice(proxy);
    const connection = await transport.connect(device.address, CONTRACT_PROFILE, CONNECT);
    const unwatch = transport.watchAdvertisements(() => undefined);
    unwatch();
    expect(await connection.read('info')).toEqual(Buffer.from('contract v1'));
    expect(proxy.log.advertisementSubscriptions).toBe(1);
    expect(proxy.log.advertisementUnsubscriptions).toBe(0);
    await connection.disconnect();
  });

  it('reports every link dropped when the proxy goes, then reconnects by itself', async () => {
    const { proxy, transport, logger } = await rig();
    const device = newDevice(proxy);
    const connection = await transport.connect(device.address, CONTRACT_PROFILE, CONNECT);
    let drops = 0;
    connection.onDisconnect(() => {
      drops += 1;
    });
    proxy.dropClients();
    await until(() => drops === 1, 'the drop report');
    expect(transport.radioStatus().state).toBe('offline');
    expect(logger.lines.some(({ message: line }) => line.includes('Proxy Hall') && line.includes('dropped'))).toBe(true);
    await until(() => transport.radioStatus().state === 'online', 'the reconnect');
    const again = await transport.connect(device.address, CONTRACT_PROFILE, CONNECT);
    expect(await again.read('info')).toEqual(Buffer.from('contract v1'));
    await again.disconnect();
  });

  it('a wrong key: unauthorized, one clear error line that never holds the key, tried again slowly', async () => {
    const wrong = randomBytes(32).toString('base64');
    const { proxy, transport, logger } = await rig({ transportKey: wrong });
    const device = newDevice(proxy);
    await expect(transport.connect(device.address, CONTRACT_PROFILE, { timeoutMs: 1_000 })).rejects.toMatchObject({ failure: 'connect_failed' });
    await until(() => proxy.log.keyFailures >= 3, 'retries');
    expect(transport.radioStatus().state).toBe('unauthorized');
    const errors = logger.lines.filter((line) => line.level === 'error').map((line) => line.message);
    expect(errors).toEqual(["The encryption key of proxy Hall does not match the proxy's: copy the key from its ESPHome YAML (api: encryption: key:) into bluetooth.proxies (docs/gateways.md)."]);
    expect(logger.text()).not.toContain(wrong);
    expect(logger.text()).not.toContain(KEY);
  });

  it('no key for a proxy that requires one, and a key for one that has none: unauthorized, said plainly', async () => {
    const first = await rig({ transportKey: undefined, key: KEY });
    const second = await rig({ key: '', transportKey: KEY });
    // rig() gives the transport the proxy's key unless told: ask for neither key on the first.
    const keyless = new EsphomeTransport({ proxy: { name: 'Porch', host: '127.0.0.1', port: first.proxy.port }, logger: first.logger, unauthorizedRetryMs: 100 });
    cleanups.push(() => keyless.close());
    keyless.start();
    second.transport.start();
    await until(() => keyless.radioStatus().state === 'unauthorized' && second.transport.radioStatus().state === 'unauthorized', 'both refused');
    expect(first.logger.lines.some(({ message: line }) => line.includes('Proxy Porch requires an encryption key'))).toBe(true);
    expect(second.logger.lines.some(({ message: line }) => line.includes('Proxy Hall does not use encryption'))).toBe(true);
  });

  it('reads the legacy advertisement message of firmware without raw advertisements', async () => {
    const { proxy, transport } = await rig({ featureFlags: 1 | 2 | 4 });
    const device = newDevice(proxy);
    const seen: Buffer[] = [];
    const unwatch = transport.watchAdvertisements((advertisement) => {
      const data = advertisement.manufacturerData.get(0xffff);
      if (advertisement.address === device.address && data !== undefined) seen.push(data);
    });
    await until(() => seen.length > 0, 'a legacy advertisement');
    unwatch();
    expect(seen[0]).toEqual(Buffer.from([1]));
    const connection = await transport.connect(device.address, CONTRACT_PROFILE, CONNECT);
    expect(await connection.read('info')).toEqual(Buffer.from('contract v1'));
    await connection.disconnect();
  });

  it('says plainly when the device is not an active Bluetooth proxy', async () => {
    const { transport, logger } = await rig({ featureFlags: 1 | 32 });
    transport.start();
    await until(() => transport.radioStatus().state === 'unauthorized', 'the refusal');
    expect(logger.lines.some(({ message: line }) => line.includes('bluetooth_proxy: active: true'))).toBe(true);
  });
});
