import { afterEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { EKeyDriver } from '../../../src/families/ekey/driver/ekey-driver.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import type { CompositeTransport } from '../../../src/gateway/transports/composite/composite-transport.js';
import { chooseTransport } from '../../../src/locks/lock-transport-choice.js';
import type { ProxyConfig } from '../../../src/config/plugin-config-schema.js';
import type { GattTransport } from '../../../src/gateway/gatt-transport.js';
import { startFakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { FakeEsphomeProxy } from '../../support/fake-esphome-proxy/fake-esphome-proxy.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { until } from '../../support/polling.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';

/**
 * The gateway core over the composite of ESPHome Bluetooth proxies (docs/design.md §4e): fake
 * proxies speaking the native API with Noise over loopback TCP, our profile's simulated locks
 * behind them, the real ESPHome transport loaded as the service loads it (chooseTransport).
 * Routing by signal, failover of a command in flight when its proxy dies, full slots, a wrong key,
 * and a proxy beside the host's adapter (BlueZ over the fake BlueZ).
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
failOnUnhandledRejections();

const KEY_HEX = 'a7'.repeat(32);
let nextAddress = 1;

function newLock(options: { motorTimeMs?: number } = {}): SimulatedLock {
  const address = `D0:0A:00:00:00:${(nextAddress++).toString(16).padStart(2, '0').toUpperCase()}`;
  return new SimulatedLock({ address, key: Buffer.from(KEY_HEX, 'hex'), name: 'Door', clock: new ManualClock(), motorTimeMs: options.motorTimeMs ?? 0 });
}

async function startProxy(name: string, options: { slots?: number; key?: string } = {}): Promise<{ proxy: FakeEsphomeProxy; config: ProxyConfig }> {
  const key = options.key ?? randomBytes(32).toString('base64');
  const proxy = await FakeEsphomeProxy.start({ name: `${name.toLowerCase()}-proxy`, encryptionKey: key, ...(options.slots === undefined ? {} : { slots: options.slots }) });
  cleanups.push(() => proxy.stop());
  return { proxy, config: { name, host: '127.0.0.1', port: proxy.port, encryption_key: key } };
}

interface Rig {
  gateway: LockGateway;
  transport: CompositeTransport;
  logger: RecordingLogger;
}

function rig(proxies: ProxyConfig[], options: { host?: GattTransport; locks: SimulatedLock[]; commandTimeoutMs?: number; logger?: RecordingLogger }): Rig {
  const logger = options.logger ?? new RecordingLogger();
  const transport = chooseTransport({ kind: 'simulator', useHostAdapter: options.host !== undefined, host: options.host, proxies, logger });
  const gateway = new LockGateway(transport, new ManualClock(Date.now()), logger, {
    connectTimeoutMs: 3_000,
    operationTimeoutMs: 2_000,
    commandTimeoutMs: options.commandTimeoutMs ?? 8_000,
    reconnectBackoff: { initialMs: 50, maxMs: 200 },
  });
  options.locks.forEach((lock, index) => {
    gateway.addLock({ id: `lock-${index}`, address: lock.address, name: `Door ${index}`, driver: new EKeyDriver(KEY_HEX) });
  });
  transport.start();
  gateway.start();
  cleanups.push(async () => {
    await gateway.stop();
    await transport.close();
  });
  return { gateway, transport, logger };
}

/**
 * Until the lock is reachable, `linked` holds, and no connect (with its read-back, which writes)
 * is in progress: a fault armed after this meets the command, not the link's set-up.
 */
async function untilLinked(gateway: LockGateway, lockId: string, linked: () => boolean): Promise<void> {
  for (;;) {
    await until(() => gateway.isReachable(lockId) && linked(), 'the link');
    await gateway.credentialsSettled(lockId);
    if (gateway.isReachable(lockId) && linked()) return;
  }
}

describe('locks through ESPHome Bluetooth proxies', () => {
  it('two proxies hear one lock: the stronger serves; killed in the middle of a command, the other takes over within its timeout', async () => {
    const lock = newLock();
    const hall = await startProxy('Hall');
    const porch = await startProxy('Porch');
    hall.proxy.addDevice(lock, { rssi: -60 });
    porch.proxy.addDevice(lock, { rssi: -82 });
    const { gateway, transport, logger } = rig([hall.config, porch.config], { locks: [lock] });
    await untilLinked(gateway, 'lock-0', () => hall.proxy.openLinksTo(lock.address) === 1);
    await until(() => transport.routeOf(lock.address)?.gateway === 'Hall', 'the route through Hall');
    expect(porch.proxy.openLinksTo(lock.address)).toBe(0);

    // Hall dies with the command in flight: the lock never got it.
    hall.proxy.dieOnNextWrite(lock.address);
    expect(await gateway.sendCommand('lock-0', 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(lock.bolt).toBe('unlocked');
    expect(porch.proxy.openLinksTo(lock.address)).toBe(1);
    expect(logger.lines.some(({ message }) => message.includes('sending it again through another gateway'))).toBe(true);
    expect(transport.gatewayStatus().find((entry) => entry.name === 'Hall')?.radio.state).toBe('offline');
  });

  it('one proxy killed in the middle of a command: the command fails in time, the lock goes offline, and comes back with the proxy', async () => {
    const lock = newLock({ motorTimeMs: 300 });
    const hall = await startProxy('Hall');
    hall.proxy.addDevice(lock);
    const { gateway, transport } = rig([hall.config], { locks: [lock], commandTimeoutMs: 3_000 });
    await untilLinked(gateway, 'lock-0', () => hall.proxy.openLinksTo(lock.address) === 1);
    const writesBefore = hall.proxy.log.writes;
    const started = performance.now();
    const outcome = gateway.sendCommand('lock-0', 'unlock');
    await until(() => hall.proxy.log.writes > writesBefore, 'the command written');
    await hall.proxy.kill();
    expect(await outcome).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(performance.now() - started).toBeLessThan(3_000 + 1_000);
    await until(() => transport.gatewayStatus()[0]?.radio.state === 'offline', 'the proxy offline');
    await hall.proxy.restart();
    await until(() => transport.gatewayStatus()[0]?.radio.state === 'online' && gateway.isReachable('lock-0'), 'the reconnect with backoff', 15_000);
    expect(await gateway.sendCommand('lock-0', 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
  });

  it('full slots: a lock heard only by a full proxy fails delivery_failed after trying, and the log names the full proxy', async () => {
    const first = newLock();
    const second = newLock();
    const hall = await startProxy('Hall', { slots: 1 });
    hall.proxy.addDevice(first);
    hall.proxy.addDevice(second);
    const { gateway, logger } = rig([hall.config], { locks: [first] });
    await until(() => gateway.isReachable('lock-0') && hall.proxy.usedSlots === 1, 'the first lock holding the slot');
    // A second lock of another family's kind of link would be on demand; ours keeps its link, so the slot stays taken.
    gateway.addLock({ id: 'lock-1', address: second.address, name: 'Door 1', driver: new EKeyDriver(KEY_HEX) });
    await until(() => logger.lines.some(({ message }) => message.includes('Proxy Hall has no free connection slot')), 'the full proxy named');
    expect(await gateway.sendCommand('lock-1', 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(second.bolt).toBe('locked');
    expect(hall.proxy.usedSlots).toBe(1);
    expect(await gateway.sendCommand('lock-0', 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
  });

  it('a wrong key: the proxy is unauthorized, said once without the key, and its locks stay unreachable', async () => {
    const lock = newLock();
    const hall = await startProxy('Hall');
    hall.proxy.addDevice(lock);
    const wrongKey = randomBytes(32).toString('base64');
    const { gateway, transport, logger } = rig([{ ...hall.config, encryption_key: wrongKey }], { locks: [lock] });
    await until(() => transport.gatewayStatus()[0]?.radio.state === 'unauthorized', 'the refusal');
    expect(await gateway.sendCommand('lock-0', 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors.map((line) => line.message)).toEqual([expect.stringContaining("The encryption key of proxy Hall does not match the proxy's")]);
    expect(logger.text()).not.toContain(wrongKey);
    expect(logger.text()).not.toContain(hall.config.encryption_key);
  });

  it('a proxy beside the host adapter (BlueZ): each lock through the radio that hears it best, both listed', async () => {
    const environment = await startFakeBluezEnvironment({ advertisementIntervalMs: 50 });
    cleanups.push(() => environment.stop());
    const near = newLock();
    const far = newLock();
    environment.bluez.addDevice(near);
    const hall = await startProxy('Hall');
    hall.proxy.addDevice(far, { rssi: -65 });
    const host = new BluezTransport({ busAddress: environment.busAddress, discoveryIntervalMs: 20 });
    const { gateway, transport } = rig([hall.config], { host, locks: [near, far] });
    await until(() => gateway.isReachable('lock-0') && gateway.isReachable('lock-1'), 'both locks', 15_000);
    expect(hall.proxy.openLinksTo(far.address)).toBe(1);
    expect(hall.proxy.openLinksTo(near.address)).toBe(0);
    expect(await gateway.sendCommand('lock-0', 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(await gateway.sendCommand('lock-1', 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    const status = transport.gatewayStatus();
    expect(status.map((entry) => [entry.name, entry.kind, entry.radio.state])).toEqual([
      ['host', 'bluez', 'online'],
      ['Hall', 'esphome', 'online'],
    ]);
    expect(status[0]?.devices.find((device) => device.address === near.address)?.connected).toBe(true);
    expect(status[1]?.devices.find((device) => device.address === far.address)).toMatchObject({ connected: true, rssi: -65 });
  });

  it('proxies with no BlueZ on the host: the host is reported unavailable once, the proxies serve', async () => {
    const lock = newLock();
    const hall = await startProxy('Hall');
    hall.proxy.addDevice(lock);
    const logger = new RecordingLogger();
    const host = new BluezTransport({ busAddress: 'unix:path=/nonexistent/ekey-test/system_bus_socket', scanRetryMs: 50, logger });
    const { gateway, transport } = rig([hall.config], { host, locks: [lock], logger });
    await untilLinked(gateway, 'lock-0', () => hall.proxy.openLinksTo(lock.address) === 1);
    expect(await gateway.sendCommand('lock-0', 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    await until(() => transport.gatewayStatus()[0]?.radio.state === 'unavailable', 'the host reported unavailable');
    expect(transport.gatewayStatus().map((entry) => [entry.name, entry.radio.state])).toEqual([
      ['host', 'unavailable'],
      ['Hall', 'online'],
    ]);
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([expect.stringContaining('D-Bus')]);
  });
});
