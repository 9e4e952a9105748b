import { describe, expect, it } from '@jest/globals';
import { EKEY_GATT_PROFILE } from '../../../src/families/ekey/driver/ekey-gatt-profile.js';
import { TransportError, type Advertisement, type GattTransport } from '../../../src/gateway/gatt-transport.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { DeferredTransport } from '../../../src/gateway/transports/shared/deferred-transport.js';
import { SimulatorTransport } from '../../../src/gateway/transports/simulator/simulator-transport.js';
import { silentLogger } from '../../../src/gateway/gateway-logger.js';
import { describeGattTransport } from '../../support/gatt-transport-contract.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';

/* A transport loaded on first use (the BlueZ stack, after the API listens): same behaviour once loaded. */

const ADDRESS = 'AA:00:00:00:00:0D';
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function rig(fail = 0): { deferred: DeferredTransport; loads: () => number; logger: RecordingLogger; inner: SimulatorTransport } {
  const inner = new SimulatorTransport([new SimulatedLock({ address: ADDRESS, key: Buffer.alloc(32, 3), name: 'Door', clock: new ManualClock(), batteryPercent: 80 })], {
    advertisementIntervalMs: 60_000,
  });
  let loads = 0;
  const logger = new RecordingLogger();
  const deferred = new DeferredTransport(
    'bluez',
    (): Promise<GattTransport> => {
      loads += 1;
      return loads <= fail ? Promise.reject(new Error('cannot find module dbus-next')) : Promise.resolve(inner);
    },
    logger,
  );
  return { deferred, loads: () => loads, logger, inner };
}

describe('DeferredTransport', () => {
  it('loads nothing until first used, then once; connects and delivers advertisements through the loaded transport', async () => {
    const r = rig();
    expect(r.loads()).toBe(0);
    const seen: Advertisement[] = [];
    const unwatch = r.deferred.watchAdvertisements((advertisement) => seen.push(advertisement));
    for (let turns = 0; turns < 5 && seen.length === 0; turns += 1) await tick();
    expect(seen.map((advertisement) => advertisement.address)).toEqual([ADDRESS]);
    const connection = await r.deferred.connect(ADDRESS, EKEY_GATT_PROFILE, { timeoutMs: 1_000 });
    expect(connection.address).toBe(ADDRESS);
    expect(r.loads()).toBe(1);
    await connection.disconnect();
    unwatch();
    await r.deferred.close();
  });

  it('a watcher removed before the load finished is never registered', async () => {
    const r = rig();
    const seen: Advertisement[] = [];
    const unwatch = r.deferred.watchAdvertisements((advertisement) => seen.push(advertisement));
    unwatch();
    for (let turns = 0; turns < 5; turns += 1) await tick();
    r.inner.advertiseNow();
    expect(seen).toEqual([]);
    await r.deferred.close();
  });

  it('a failed load: connect fails as bus_unavailable, a watch logs it; the next use loads again', async () => {
    const r = rig(3);
    await expect(r.deferred.connect(ADDRESS, EKEY_GATT_PROFILE, { timeoutMs: 1_000 })).rejects.toMatchObject({ name: 'TransportError', failure: 'bus_unavailable' });
    await expect(r.deferred.connect(ADDRESS, EKEY_GATT_PROFILE, { timeoutMs: 1_000 })).rejects.toBeInstanceOf(TransportError);
    r.deferred.watchAdvertisements(() => undefined);
    for (let turns = 0; turns < 5; turns += 1) await tick();
    expect(r.logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'The bluez transport could not be loaded, so no lock is heard: cannot find module dbus-next',
    ]);
    const connection = await r.deferred.connect(ADDRESS, EKEY_GATT_PROFILE, { timeoutMs: 1_000 });
    expect(r.loads()).toBe(4);
    await connection.disconnect();
    await r.deferred.close();
  });

  it('closing before any use loads nothing', async () => {
    const r = rig();
    await r.deferred.close();
    expect(r.loads()).toBe(0);
    await expect(r.deferred.connect(ADDRESS, EKEY_GATT_PROFILE, { timeoutMs: 1_000 })).rejects.toMatchObject({ failure: 'bus_unavailable' });
    expect(r.loads()).toBe(0);
  });
});

describeGattTransport('DeferredTransport over the simulator', ({ operationTimeoutMs }) => {
  const inner = new SimulatorTransport([], { operationTimeoutMs, advertisementIntervalMs: 60_000 });
  const transport = new DeferredTransport('simulator', () => Promise.resolve(inner), silentLogger);
  return {
    transport,
    add: (device) => {
      inner.addDevice(device);
    },
    stallConnects: (address) => {
      inner.setRadio(address, { connectDelayMs: 5_000 });
    },
    stallOperations: (address) => {
      inner.setRadio(address, { operationDelayMs: 5_000 });
    },
    close: () => transport.close(),
  };
});
