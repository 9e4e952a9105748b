import { afterEach, describe, expect, it } from '@jest/globals';
import { encodeActivityReadSince } from '../../../src/families/ekey/protocol/activity-record-codec.js';
import type { Advertisement, GattConnection, GattProfile } from '../../../src/gateway/gatt-transport.js';
import { FrameType, LockUuids, sigUuid } from '../../../src/families/ekey/protocol/lock-profile.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import type { SimulatedDevice } from '../../../src/gateway/transports/simulator/simulated-device.js';
import { SimulatorTransport } from '../../../src/gateway/transports/simulator/simulator-transport.js';
import { describeGattTransport } from '../../support/gatt-transport-contract.js';
import { ManualClock } from '../../support/manual-clock.js';
import { until } from '../../support/polling.js';
import { TINY_COMPANY, TINY_PROFILE, TinyDevice } from '../../support/tiny-device.js';

const TIMEOUT = { timeoutMs: 1000 };

/** Our profile's lock, reduced to what these tests touch; Hardware Revision is optional and absent. */
const LOCK_PROFILE: GattProfile = {
  characteristics: [
    { name: 'boltState', service: LockUuids.lockService, uuid: LockUuids.boltState, required: true, subscribe: true },
    { name: 'activity', service: LockUuids.lockService, uuid: LockUuids.activity, required: true, subscribe: true },
    { name: 'batteryLevel', service: LockUuids.batteryService, uuid: LockUuids.batteryLevel, required: true, subscribe: true },
    { name: 'manufacturerName', service: LockUuids.deviceInformationService, uuid: LockUuids.manufacturerName, required: false, subscribe: false },
    { name: 'hardwareRevision', service: LockUuids.deviceInformationService, uuid: sigUuid(0x2a27), required: false, subscribe: false },
  ],
};

/** Only the Device Information Service, as a tool that identifies devices would use it. */
const INFORMATION_PROFILE: GattProfile = {
  characteristics: [{ name: 'model', service: LockUuids.deviceInformationService, uuid: LockUuids.modelNumber, required: true, subscribe: false }],
};

// ---- helpers ----

const transports: SimulatorTransport[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.close();
});

function newTransport(devices: SimulatedDevice[], advertisementIntervalMs = 60_000): SimulatorTransport {
  const transport = new SimulatorTransport(devices, { advertisementIntervalMs });
  transports.push(transport);
  return transport;
}

function newLock(address = 'AA:00:00:00:00:01'): SimulatedLock {
  return new SimulatedLock({ address, key: Buffer.alloc(32, 3), name: 'Door', clock: new ManualClock(), batteryPercent: 80 });
}

function collect(connection: GattConnection): [string, Buffer][] {
  const notifications: [string, Buffer][] = [];
  connection.onNotification((name, value) => notifications.push([name, value]));
  return notifications;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SimulatorTransport.connect', () => {
  it('resolves a profile against our lock: reads, writes and notifications by profile name', async () => {
    const lock = newLock();
    const connection = await newTransport([lock]).connect(lock.address.toLowerCase(), LOCK_PROFILE, TIMEOUT);
    const notifications = collect(connection);
    expect(connection.address).toBe(lock.address);
    expect(await connection.read('batteryLevel')).toEqual(Buffer.from([80]));
    expect((await connection.read('manufacturerName')).toString('utf8')).toBe('Open Lock Project');

    await connection.write('activity', encodeActivityReadSince(0));
    lock.setBattery(42);
    await turn();
    expect(notifications.map(([name]) => name)).toEqual(['activity', 'batteryLevel']);
    expect(notifications[0]?.[1][0]).toBe(FrameType.activityBacklogEnd);
    expect(notifications[1]?.[1]).toEqual(Buffer.from([42]));
  });

  it('opens no link to a device that lacks a required characteristic', async () => {
    const lock = newLock();
    const transport = newTransport([lock]);
    await expect(transport.connect(lock.address, TINY_PROFILE, TIMEOUT)).rejects.toMatchObject({ failure: 'gatt_unavailable' });
    expect(lock.connectionCount).toBe(0);
  });

  it('serves a device of another family: an indicating characteristic and a second service', async () => {
    const tiny = new TinyDevice('BB:00:00:00:00:01');
    const connection = await newTransport([tiny]).connect(tiny.address, TINY_PROFILE, TIMEOUT);
    const notifications = collect(connection);
    expect((await connection.read('info')).toString()).toBe('tiny v1');
    await connection.write('command', Buffer.from([1, 2, 3]));
    await turn();
    expect(notifications).toEqual([['status', Buffer.from([3, 2, 1])]]);
  });

  it('connects to the same address with two different profiles one after the other', async () => {
    const lock = newLock();
    const transport = newTransport([lock]);
    const first = await transport.connect(lock.address, INFORMATION_PROFILE, TIMEOUT);
    expect((await first.read('model')).toString()).toBe('SIM-1');
    expect(first.has('batteryLevel')).toBe(false);
    await first.disconnect();
    const second = await transport.connect(lock.address, LOCK_PROFILE, TIMEOUT);
    expect(await second.read('batteryLevel')).toEqual(Buffer.from([80]));
    expect(second.has('model')).toBe(false);
    await second.disconnect();
    expect(lock.connectionCount).toBe(0);
  });

  it('answers not_found for a device out of range, whose link is lost', async () => {
    const lock = newLock();
    const transport = newTransport([lock]);
    const connection = await transport.connect(lock.address, LOCK_PROFILE, TIMEOUT);
    let lost = 0;
    connection.onDisconnect(() => (lost += 1));
    lock.goOutOfRange();
    await until(() => lost === 1, 'the link loss');
    expect(connection.connected).toBe(false);
    await expect(transport.connect(lock.address, LOCK_PROFILE, TIMEOUT)).rejects.toMatchObject({ failure: 'not_found' });
  });

  it('keeps devices by address: addDevice, getDevice, removeDevice and the addLock alias', async () => {
    const transport = newTransport([]);
    const lock = newLock('cc:00:00:00:00:01');
    transport.addLock(lock);
    expect(transport.getDevice('CC:00:00:00:00:01')).toBe(lock);
    transport.removeDevice('cc:00:00:00:00:01');
    expect(transport.getDevice(lock.address)).toBeUndefined();
    await expect(transport.connect(lock.address, LOCK_PROFILE, TIMEOUT)).rejects.toMatchObject({ failure: 'not_found' });
  });
});

describe('SimulatorTransport radio conditions (setRadio)', () => {
  it('hears a device with the signal set for this radio, and as advertised without one', async () => {
    const tiny = new TinyDevice('BB:00:00:00:00:10');
    const transport = newTransport([tiny]);
    const seen: (number | null)[] = [];
    transport.watchAdvertisements((advertisement) => seen.push(advertisement.rssi));
    await Promise.resolve();
    transport.setRadio(tiny.address.toLowerCase(), { rssi: -88 });
    transport.advertiseNow();
    expect(seen).toEqual([-55, -88]);
  });

  it('fails connects over a radio that cannot hold the link, and connects within the budget despite a delay', async () => {
    const lock = newLock();
    const transport = newTransport([lock]);
    transport.setRadio(lock.address, { linkFails: true });
    await expect(transport.connect(lock.address, LOCK_PROFILE, TIMEOUT)).rejects.toMatchObject({ name: 'TransportError', failure: 'connect_failed' });
    expect(lock.connectionCount).toBe(0);
    transport.setRadio(lock.address, { connectDelayMs: 20, operationDelayMs: 20 });
    const connection = await transport.connect(lock.address, LOCK_PROFILE, TIMEOUT);
    expect(await connection.read('batteryLevel')).toEqual(Buffer.from([80]));
    await connection.disconnect();
  });
});

describe('SimulatorTransport.watchAdvertisements', () => {
  function watch(transport: SimulatorTransport): { seen: Advertisement[]; unwatch: () => void } {
    const seen: Advertisement[] = [];
    const unwatch = transport.watchAdvertisements((advertisement) => seen.push(advertisement));
    return { seen, unwatch };
  }

  it('delivers every in-range device at once, with manufacturer data, and again on advertiseNow()', async () => {
    const tiny = new TinyDevice('BB:00:00:00:00:02');
    const lock = newLock();
    const transport = newTransport([tiny, lock]);
    const { seen } = watch(transport);
    expect(seen).toEqual([]); // never before the caller holds its unwatch function
    await Promise.resolve();
    expect(seen).toEqual([
      { address: tiny.address, rssi: -55, manufacturerData: new Map([[TINY_COMPANY, Buffer.from([0x02, 0x15, 1])]]) },
      { address: lock.address, rssi: -60, manufacturerData: new Map() },
    ]);
    transport.advertiseNow();
    expect(seen).toHaveLength(4);
  });

  it('delivers a changed advertisement when the device changes it, and nothing from a device out of range', async () => {
    const tiny = new TinyDevice('BB:00:00:00:00:03');
    const transport = newTransport([tiny]);
    const { seen } = watch(transport);
    await Promise.resolve();
    tiny.setState(7);
    await Promise.resolve();
    expect(seen.map((advertisement) => advertisement.manufacturerData.get(TINY_COMPANY)?.[2])).toEqual([1, 7]);
    tiny.setInRange(false);
    transport.advertiseNow();
    await Promise.resolve();
    expect(seen).toHaveLength(2);
    tiny.setInRange(true);
    await Promise.resolve();
    expect(seen).toHaveLength(3);
  });

  it('re-advertises periodically while watched, and stops when the last watcher leaves', async () => {
    const tiny = new TinyDevice('BB:00:00:00:00:04');
    const transport = newTransport([tiny], 10);
    const first = watch(transport);
    const second = watch(transport);
    // Counted, not timed: rounds arrive as the interval fires, however slowly the machine runs.
    await until(() => first.seen.length >= 4, 'four rounds of advertisements');
    first.unwatch();
    first.unwatch(); // idempotent
    const firstCount = first.seen.length;
    // Proof of absence by what comes later: three more rounds reach the other watcher, none the first.
    await until(() => second.seen.length >= firstCount + 3, 'three more rounds for the remaining watcher');
    expect(first.seen).toHaveLength(firstCount);
    second.unwatch();
    const secondCount = second.seen.length;
    tiny.setState(9);
    // A watcher that comes after the change sees three rounds; the one that left sees none of them.
    const later = watch(transport);
    await until(() => later.seen.length >= 3, 'three rounds for a later watcher');
    expect(second.seen).toHaveLength(secondCount);
    later.unwatch();
  });

  it('keeps delivering to the other watchers when one listener throws', async () => {
    const tiny = new TinyDevice('BB:00:00:00:00:05');
    const transport = newTransport([tiny]);
    transport.watchAdvertisements(() => {
      throw new Error('listener bug');
    });
    const { seen } = watch(transport);
    await Promise.resolve();
    transport.advertiseNow();
    expect(seen).toHaveLength(2);
  });

  it('stops watching on close()', async () => {
    const tiny = new TinyDevice('BB:00:00:00:00:06');
    const transport = newTransport([tiny]);
    const { seen } = watch(transport);
    await transport.close();
    await Promise.resolve();
    transport.advertiseNow();
    tiny.setState(3);
    await Promise.resolve();
    expect(seen).toEqual([]);
  });
});

describeGattTransport('SimulatorTransport', ({ operationTimeoutMs }) => {
  const transport = new SimulatorTransport([], { operationTimeoutMs, advertisementIntervalMs: 60_000 });
  return {
    transport,
    add: (device) => {
      transport.addDevice(device);
    },
    stallConnects: (address) => {
      transport.setRadio(address, { connectDelayMs: 5_000 });
    },
    stallOperations: (address) => {
      transport.setRadio(address, { operationDelayMs: 5_000 });
    },
    close: () => transport.close(),
  };
});
