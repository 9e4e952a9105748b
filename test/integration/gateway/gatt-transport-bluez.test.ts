import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeActivityReadSince } from '../../../src/families/ekey/protocol/activity-record-codec.js';
import type { Advertisement, GattConnection, GattProfile } from '../../../src/gateway/gatt-transport.js';
import { FrameType, LockUuids, sigUuid } from '../../../src/families/ekey/protocol/lock-profile.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { BluezTransport, type BluezDiagnostics } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { FakeBluez } from '../../support/fake-bluez/fake-bluez.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { startPrivateDbusDaemon } from '../../support/fake-bluez/private-dbus-daemon.js';
import { GatewayLineLogger, testLogger } from '../../support/fake-bluez/test-logger.js';
import { describeGattTransport } from '../../support/gatt-transport-contract.js';
import { ManualClock } from '../../support/manual-clock.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';
import { readUntil, until } from '../../support/polling.js';
import { TINY_COMMAND, TINY_COMPANY, TINY_INFO, TINY_INFO_SERVICE, TINY_PROFILE, TINY_SERVICE, TinyDevice } from '../../support/tiny-device.js';

/**
 * The GATT transport alone (no gateway) against the fake BlueZ on a private dbus-daemon: the
 * shared contract (test/support/gatt-transport-contract.ts, at the end), then what is BlueZ's own
 * (request writes, D-Bus faults, LE discovery, bus outages, match rules over many cycles).
 */

const TIMEOUT = { timeoutMs: 5000 };
const SOAK_CYCLES = Number(process.env.GATT_SOAK_CYCLES ?? 500);

/** Our profile, as a driver would describe it; Hardware Revision is optional and absent. */
const LOCK_PROFILE: GattProfile = {
  characteristics: [
    { name: 'boltState', service: LockUuids.lockService, uuid: LockUuids.boltState, required: true, subscribe: true },
    { name: 'controlPoint', service: LockUuids.lockService, uuid: LockUuids.controlPoint, required: true, subscribe: true },
    { name: 'activity', service: LockUuids.lockService, uuid: LockUuids.activity, required: true, subscribe: true },
    { name: 'batteryLevel', service: LockUuids.batteryService, uuid: LockUuids.batteryLevel, required: true, subscribe: true },
    { name: 'credentials', service: LockUuids.lockService, uuid: LockUuids.credentials, required: true, subscribe: true },
    { name: 'manufacturerName', service: LockUuids.deviceInformationService, uuid: LockUuids.manufacturerName, required: false, subscribe: false },
    { name: 'hardwareRevision', service: LockUuids.deviceInformationService, uuid: sigUuid(0x2a27), required: false, subscribe: false },
  ],
};

/** Only the Device Information Service, as a tool that identifies devices would use it. */
const INFORMATION_PROFILE: GattProfile = {
  characteristics: [
    { name: 'model', service: LockUuids.deviceInformationService, uuid: LockUuids.modelNumber, required: true, subscribe: false },
    { name: 'battery', service: LockUuids.batteryService, uuid: LockUuids.batteryLevel, required: true, subscribe: true },
  ],
};

/** The tiny device's pairing mode (test/support/tiny-device.ts): the command characteristic only, no subscription. */
const TINY_PAIRING_PROFILE: GattProfile = {
  characteristics: [
    { name: 'pairingCommand', service: TINY_SERVICE, uuid: TINY_COMMAND, required: true, subscribe: false },
    { name: 'info', service: TINY_INFO_SERVICE, uuid: TINY_INFO, required: true, subscribe: false },
  ],
};

// ---- environment ----

let environment: FakeBluezEnvironment;
let nextAddress = 1;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  environment = await startFakeBluezEnvironment({ advertisementIntervalMs: 50 });
});

afterAll(async () => {
  await environment.stop();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
// Late answers of abandoned D-Bus calls must never surface as unhandled rejections.
// A fixed settle stays here: nothing marks the last late answer of an abandoned call (the bus is dropped, not awaited).
failOnUnhandledRejections({ settleMs: 20 });

function address(prefix: string): string {
  return `${prefix}:00:00:00:00:${(nextAddress++).toString(16).padStart(2, '0').toUpperCase()}`;
}

function newLock(): SimulatedLock {
  const lock = new SimulatedLock({ address: address('C1'), key: Buffer.alloc(32, 9), name: 'Door', clock: new ManualClock(), batteryPercent: 77 });
  environment.bluez.addDevice(lock);
  return lock;
}

function newTiny(): TinyDevice {
  const tiny = new TinyDevice(address('C2'));
  environment.bluez.addDevice(tiny);
  return tiny;
}

function newTransport(options: ConstructorParameters<typeof BluezTransport>[0] = {}): BluezTransport {
  const transport = new BluezTransport({ busAddress: environment.busAddress, discoveryIntervalMs: 20, operationTimeoutMs: 3000, scanRetryMs: 100, logger: testLogger(), ...options });
  cleanups.push(() => transport.close());
  return transport;
}

function collect(connection: GattConnection): [string, Buffer][] {
  const notifications: [string, Buffer][] = [];
  connection.onNotification((name, value) => notifications.push([name, value]));
  return notifications;
}

/** Diagnostics once the advertisement watch has its rules (it starts in the background). */
function settledDiagnostics(transport: BluezTransport): Promise<BluezDiagnostics> {
  return readUntil(() => transport.diagnostics(), (diagnostics) => diagnostics.advertisementWatchRules > 0, { timeoutMs: 5000 });
}

describe('BlueZ GATT transport (fake BlueZ over a real dbus-daemon)', () => {
  describe('connect with a profile', () => {
    it('resolves our lock profile: reads, request writes and notifications by profile name', async () => {
      const lock = newLock();
      const connection = await newTransport().connect(lock.address.toLowerCase(), LOCK_PROFILE, TIMEOUT);
      cleanups.push(() => connection.disconnect());
      const notifications = collect(connection);
      expect(connection.address).toBe(lock.address);
      expect(await connection.read('batteryLevel')).toEqual(Buffer.from([77]));
      expect((await connection.read('manufacturerName')).toString('utf8')).toBe('Open Lock Project');

      await connection.write('activity', encodeActivityReadSince(0));
      await until(() => notifications.length === 1, 'the backlog end');
      lock.setBattery(41);
      await until(() => notifications.length === 2, 'the battery notification');
      expect(notifications[0]?.[0]).toBe('activity');
      expect(notifications[0]?.[1][0]).toBe(FrameType.activityBacklogEnd);
      expect(notifications[1]).toEqual(['batteryLevel', Buffer.from([41])]);
      expect(environment.bluez.device(lock.address).log.writeTypes).toEqual(['request']);
    });

    it('fails with gatt_unavailable when a required characteristic is missing, then connects with the right profile', async () => {
      const lock = newLock();
      const transport = newTransport();
      await expect(transport.connect(lock.address, TINY_PROFILE, TIMEOUT)).rejects.toMatchObject({ failure: 'gatt_unavailable' });
      await until(() => !environment.bluez.device(lock.address).connected, 'the failed link to close');
      const connection = await transport.connect(lock.address, LOCK_PROFILE, TIMEOUT);
      expect(await connection.read('boltState')).toHaveLength(2);
      await connection.disconnect();
    });

    it('serves a device of another family: an indicating characteristic in one service, a readable one in a second', async () => {
      const tiny = newTiny();
      const connection = await newTransport().connect(tiny.address, TINY_PROFILE, TIMEOUT);
      cleanups.push(() => connection.disconnect());
      const notifications = collect(connection);
      expect((await connection.read('info')).toString()).toBe('tiny v1');
      expect(await connection.read('status')).toEqual(Buffer.from([1]));
      await connection.write('command', Buffer.from([1, 2, 3]));
      await until(() => notifications.length === 1, 'the indication');
      expect(notifications).toEqual([['status', Buffer.from([3, 2, 1])]]);
    });

    it('connects to the same address with two different profiles one after the other, and back', async () => {
      const tiny = newTiny();
      const lock = newLock();
      const transport = newTransport();
      for (let round = 0; round < 2; round += 1) {
        const pairing = await transport.connect(tiny.address, TINY_PAIRING_PROFILE, TIMEOUT);
        expect(pairing.has('status')).toBe(false);
        const pairingNotifications = collect(pairing);
        await pairing.write('pairingCommand', Buffer.from([9, 8]));
        // A later answer over the same link: an indication the write caused would have come before it.
        expect((await pairing.read('info')).toString()).toBe('tiny v1');
        expect(pairingNotifications).toEqual([]); // nothing subscribed in this profile
        await pairing.disconnect();

        const runtime = await transport.connect(tiny.address, TINY_PROFILE, TIMEOUT);
        const notifications = collect(runtime);
        await runtime.write('command', Buffer.from([4, 5]));
        await until(() => notifications.length === 1, 'the indication');
        expect(notifications[0]).toEqual(['status', Buffer.from([5, 4])]);
        await runtime.disconnect();

        const information = await transport.connect(lock.address, INFORMATION_PROFILE, TIMEOUT);
        expect((await information.read('model')).toString()).toBe('SIM-1');
        await information.disconnect();
        const full = await transport.connect(lock.address, LOCK_PROFILE, TIMEOUT);
        expect(await full.read('batteryLevel')).toEqual(Buffer.from([77]));
        await full.disconnect();
      }
    });

    it('reports a write error of any characteristic and a dropped link after a write (generic faults)', async () => {
      const tiny = newTiny();
      const device = environment.bluez.device(tiny.address);
      device.faults.writeError = 'org.bluez.Error.Failed';
      const transport = newTransport();
      const connection = await transport.connect(tiny.address, TINY_PROFILE, TIMEOUT);
      await expect(connection.write('command', Buffer.from([1]))).rejects.toMatchObject({ failure: 'operation_failed' });
      delete device.faults.writeError;
      device.faults.disconnectAfterWrite = true;
      let lost = false;
      connection.onDisconnect(() => (lost = true));
      await connection.write('command', Buffer.from([1]));
      await until(() => lost, 'the link loss');
      expect(connection.connected).toBe(false);
    });
  });

  describe('watchAdvertisements', () => {
    function watch(transport: BluezTransport, from: string): { seen: Advertisement[]; unwatch: () => void } {
      const seen: Advertisement[] = [];
      const unwatch = transport.watchAdvertisements((advertisement) => {
        if (advertisement.address === from) seen.push(advertisement);
      });
      return { seen, unwatch };
    }

    it('delivers manufacturer data and RSSI, repeatedly, with LE discovery and duplicate reports on', async () => {
      const tiny = newTiny();
      const transport = newTransport();
      const { seen, unwatch } = watch(transport, tiny.address);
      cleanups.push(unwatch);
      await until(() => seen.length >= 3, 'three advertisements');
      expect(seen[0]).toEqual({ address: tiny.address, rssi: -55, manufacturerData: new Map([[TINY_COMPANY, Buffer.from([0x02, 0x15, 1])]]) });
      expect(seen[2]).toEqual(seen[0]);
      expect(environment.bluez.discovering).toBe(true);
      expect(environment.bluez.discoveryFilter).toEqual({ Transport: 'le', DuplicateData: true });
    });

    it('delivers a device without manufacturer data with an empty map, and a change as soon as it happens', async () => {
      const lock = newLock();
      const tiny = newTiny();
      const transport = newTransport();
      const fromLock = watch(transport, lock.address);
      const fromTiny = watch(transport, tiny.address);
      cleanups.push(fromLock.unwatch, fromTiny.unwatch);
      await until(() => fromLock.seen.length > 0 && fromTiny.seen.length > 0, 'both devices');
      expect(fromLock.seen[0]).toEqual({ address: lock.address, rssi: -60, manufacturerData: new Map() });
      tiny.setState(0x2a);
      await until(() => fromTiny.seen.at(-1)?.manufacturerData.get(TINY_COMPANY)?.[2] === 0x2a, 'the new state');
    });

    it('stops delivering a device that goes out of range, and resumes when it is back', async () => {
      const tiny = newTiny();
      const transport = newTransport();
      const { seen, unwatch } = watch(transport, tiny.address);
      cleanups.push(unwatch);
      await until(() => seen.length > 0, 'an advertisement');
      // Every round of advertisements goes through the devices in the order they were added: a
      // device added after the tiny one shows each round that would have carried the tiny one too.
      const witness = watch(transport, newTiny().address);
      cleanups.push(witness.unwatch);
      await until(() => witness.seen.length > 0, 'the witness device');
      tiny.setInRange(false);
      // What the tiny device sent before going out of range arrives before the witness's next advertisement.
      let rounds = witness.seen.length;
      await until(() => witness.seen.length > rounds, 'a round after going out of range');
      const count = seen.length;
      rounds = witness.seen.length;
      await until(() => witness.seen.length >= rounds + 5, 'five more rounds');
      expect(seen).toHaveLength(count);
      tiny.setInRange(true);
      await until(() => seen.length > count, 'advertisements again');
    });

    it('stops delivery on unwatch, and turns discovery off when the last watcher leaves', async () => {
      const tiny = newTiny();
      const transport = newTransport();
      const first = watch(transport, tiny.address);
      const second = watch(transport, tiny.address);
      await until(() => first.seen.length > 0 && second.seen.length > 0, 'advertisements');
      first.unwatch();
      first.unwatch(); // idempotent
      const count = first.seen.length;
      await until(() => second.seen.length > count + 2, 'more advertisements for the second watcher');
      expect(first.seen).toHaveLength(count);
      expect(environment.bluez.discovering).toBe(true);
      second.unwatch();
      await until(() => !environment.bluez.discovering, 'discovery to stop');
      const diagnostics = await transport.diagnostics();
      expect(diagnostics.advertisementWatchRules).toBe(0);
      expect(diagnostics.messageListeners).toBe(0);
    });

    it('shares discovery with a connect that has to discover the device', async () => {
      const transport = newTransport();
      const watched = watch(transport, 'none');
      cleanups.push(watched.unwatch);
      await until(() => environment.bluez.discovering, 'discovery');
      const lock = new SimulatedLock({ address: address('C3'), key: Buffer.alloc(32, 1), name: 'Late', clock: new ManualClock() });
      environment.bluez.addDevice(lock);
      const connection = await transport.connect(lock.address, LOCK_PROFILE, TIMEOUT);
      await connection.disconnect();
      expect(environment.bluez.discovering).toBe(true); // the watch still needs it
      watched.unwatch();
      await until(() => !environment.bluez.discovering, 'discovery to stop');
    });

    it('retries quietly while the bus is unreachable: one error line, no crash, no unhandled rejection', async () => {
      const logger = new GatewayLineLogger();
      const transport = newTransport({ busAddress: 'unix:path=/nonexistent/bus/socket', logger });
      const { unwatch } = watch(transport, 'none');
      cleanups.push(unwatch);
      // Every attempt says two lines (the bus's failure, the scan's), at debug level once reported: six attempts.
      await until(() => logger.lines.length + logger.debugLines >= 12, 'several retries at 100 ms');
      expect(logger.lines).toHaveLength(1);
      expect(logger.lines[0]).toMatch(/^error /);
    });

    it('starts scanning once BlueZ appears on the bus (one error line before, one info line after), reporting new devices and changes', async () => {
      const daemon = await startPrivateDbusDaemon();
      cleanups.push(() => daemon.stop());
      const late: { bluez?: FakeBluez } = {};
      // Stopped after the transport (cleanups run last-in first-out), as BlueZ outlives its clients.
      cleanups.push(() => late.bluez?.stop());
      const logger = new GatewayLineLogger();
      const transport = newTransport({ busAddress: daemon.address, logger });
      const tiny = new TinyDevice(address('C4'));
      const { seen, unwatch } = watch(transport, tiny.address);
      cleanups.push(unwatch);
      await until(() => logger.lines.length > 0, 'the failure line');
      // Each quiet retry (every 100 ms) is one debug line: a few of them before BlueZ appears.
      const quiet = logger.debugLines;
      await until(() => logger.debugLines >= quiet + 4, 'quiet retries');
      // No periodic re-advertising here: the first report comes from InterfacesAdded, the next from PropertiesChanged.
      const bluez = await FakeBluez.start(daemon.address, { advertisementIntervalMs: 60_000 });
      late.bluez = bluez;
      await until(() => bluez.discovering, 'discovery');
      bluez.addDevice(tiny);
      await until(() => seen.length === 1, 'the new device');
      expect(seen[0]).toEqual({ address: tiny.address, rssi: -55, manufacturerData: new Map([[TINY_COMPANY, Buffer.from([0x02, 0x15, 1])]]) });
      tiny.setState(5);
      await until(() => seen.length === 2, 'the changed advertisement');
      expect(seen[1]?.manufacturerData.get(TINY_COMPANY)).toEqual(Buffer.from([0x02, 0x15, 5]));
      expect(logger.lines).toEqual([expect.stringMatching(/^error Bluetooth LE scanning is unavailable/), 'info Bluetooth LE scanning works again.']);
    });
  });

  describe('soak', () => {
    it(`keeps the daemon's match rules flat over ${SOAK_CYCLES} connect/subscribe/write/disconnect cycles with advertisement watching`, async () => {
      const lock = newLock();
      const tiny = newTiny();
      const transport = newTransport({ operationTimeoutMs: 2000 });
      const readings: { cycle: number; watching: boolean; diagnostics: BluezDiagnostics }[] = [];
      let advertisements = 0;
      const watch: { unwatch: (() => void) | null } = { unwatch: null };
      const setWatching = (on: boolean): void => {
        if (on && watch.unwatch === null) {
          watch.unwatch = transport.watchAdvertisements(() => {
            advertisements += 1;
          });
        } else if (!on && watch.unwatch !== null) {
          watch.unwatch();
          watch.unwatch = null;
        }
      };
      cleanups.push(() => {
        setWatching(false);
      });
      const started = performance.now();
      for (let cycle = 1; cycle <= SOAK_CYCLES; cycle += 1) {
        // The watch runs through most cycles and is dropped and taken again every 50.
        setWatching(cycle % 50 !== 0);
        // Two families and two profiles per address, in turn.
        const target = cycle % 3 === 0 ? { address: tiny.address, profile: cycle % 2 === 0 ? TINY_PROFILE : TINY_PAIRING_PROFILE } : { address: lock.address, profile: cycle % 2 === 0 ? LOCK_PROFILE : INFORMATION_PROFILE };
        const connection = await transport.connect(target.address, target.profile, TIMEOUT);
        const notifications = collect(connection);
        if (target.profile === LOCK_PROFILE) {
          await connection.write('activity', encodeActivityReadSince(0));
          await until(() => notifications.length > 0, 'the backlog end');
        } else if (target.profile === TINY_PROFILE) {
          await connection.write('command', Buffer.from([cycle & 0xff]));
          await until(() => notifications.length > 0, 'the indication');
        } else if (target.profile === TINY_PAIRING_PROFILE) {
          await connection.write('pairingCommand', Buffer.from([1]));
        } else {
          await connection.read('model');
        }
        await connection.disconnect();
        if (cycle % 100 === 20 || cycle === SOAK_CYCLES - 1) {
          // Readings while the watch runs, so every reading counts the same things.
          readings.push({ cycle, watching: watch.unwatch !== null, diagnostics: await settledDiagnostics(transport) });
        }
      }
      const elapsedMs = performance.now() - started;
      console.log(
        [
          `GATT transport soak: ${SOAK_CYCLES} cycles in ${(elapsedMs / 1000).toFixed(1)} s (${(elapsedMs / SOAK_CYCLES).toFixed(1)} ms/cycle), ${advertisements} advertisements seen`,
          ...readings.map(
            ({ cycle, diagnostics: d }) =>
              `  after ${cycle}: daemon match rules ${String(d.daemonMatchRules)}, tracked ${d.trackedMatchRules}, signal listeners ${d.signalListeners}, watch rules ${d.advertisementWatchRules}, message listeners ${d.messageListeners}`,
          ),
        ].join('\n'),
      );
      const first = readings[0];
      if (first === undefined) throw new Error('no readings');
      expect(first.diagnostics.daemonMatchRules).not.toBeNull();
      expect(first.diagnostics.advertisementWatchRules).toBe(2);
      for (const reading of readings) {
        expect(reading.watching).toBe(true);
        expect(reading.diagnostics).toEqual(first.diagnostics);
      }
      expect(advertisements).toBeGreaterThan(0);
    }, 300_000);
  });
});

describeGattTransport('BluezTransport over the fake BlueZ', ({ operationTimeoutMs }) => {
  const transport = new BluezTransport({ busAddress: environment.busAddress, discoveryIntervalMs: 20, operationTimeoutMs, scanRetryMs: 100, logger: testLogger() });
  return {
    transport,
    add: (device) => {
      environment.bluez.addDevice(device);
    },
    stallConnects: (address) => {
      environment.bluez.device(address).faults.connectDelayMs = 5_000;
    },
    stallOperations: (address) => {
      environment.bluez.device(address).faults.operationDelayMs = 5_000;
    },
    close: () => transport.close(),
  };
});
