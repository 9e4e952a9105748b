import { EKEY_GATT_PROFILE } from '../../../src/families/ekey/driver/ekey-gatt-profile.js';
import { EKeyDriver } from '../../../src/families/ekey/driver/ekey-driver.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { ActivityEvent } from '../../../src/gateway/gateway-events.js';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { TransportError } from '../../../src/gateway/gatt-transport.js';
import { FakeBluez, type FakeDeviceFaults } from '../../support/fake-bluez/fake-bluez.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { testLogger } from '../../support/fake-bluez/test-logger.js';
import { startPrivateDbusDaemon } from '../../support/fake-bluez/private-dbus-daemon.js';
import { ManualClock } from '../../support/manual-clock.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';
import { until } from '../../support/polling.js';

const KEY_HEX = 'a1'.repeat(32);
const EKEY = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
/**
 * A command budget longer than Jest lets a test run (30 s): an outcome that arrives at all was
 * produced by the fault (or by a budget a test tightens on purpose), never by this budget running
 * out — so no test needs a wall-clock bound that a loaded machine could miss.
 */
const BEYOND_THE_TEST_MS = 60_000;

let environment: FakeBluezEnvironment;
let nextAddress = 1;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  environment = await startFakeBluezEnvironment();
});

afterAll(() => environment.stop());

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
// Late answers of abandoned D-Bus calls must never surface as unhandled rejections.
failOnUnhandledRejections({ settleMs: 20 });

function newLock(faults: FakeDeviceFaults = {}, motorTimeMs = 0): { lock: SimulatedLock; address: string; clock: ManualClock } {
  const clock = new ManualClock();
  const address = `C0:FF:EE:00:00:${(nextAddress++).toString(16).padStart(2, '0').toUpperCase()}`;
  const lock = new SimulatedLock({ address, key: Buffer.from(KEY_HEX, 'hex'), name: `Door ${address}`, clock, batteryPercent: 64, motorTimeMs });
  environment.bluez.addLock(lock, faults);
  return { lock, address, clock };
}

/**
 * Budgets are generous where a test needs things to work (the machine may be heavily loaded)
 * and tight only where a test needs them to run out; fault cases set their own.
 */
function newGateway(
  clock: ManualClock,
  options: ConstructorParameters<typeof LockGateway>[3] = {},
  operationTimeoutMs = 3000,
): { gateway: LockGateway; transport: BluezTransport } {
  const transport = new BluezTransport({ busAddress: environment.busAddress, discoveryIntervalMs: 20, operationTimeoutMs });
  const gateway = new LockGateway(transport, clock, testLogger(), {
    connectTimeoutMs: 5000,
    operationTimeoutMs,
    commandTimeoutMs: 8000,
    reconnectBackoff: { initialMs: 20, maxMs: 200 },
    ...options,
  });
  cleanups.push(() => gateway.stop());
  return { gateway, transport };
}

/** Records the failure of every transport connect that rejects (observing the real transport; calls go through). */
function recordConnectFailures(transport: BluezTransport): string[] {
  const failures: string[] = [];
  const connect = transport.connect.bind(transport);
  transport.connect = (...args) =>
    connect(...args).catch((error: unknown) => {
      failures.push(error instanceof TransportError ? error.failure : String(error));
      throw error;
    });
  return failures;
}

describe('BlueZ transport over a real dbus-daemon (fake BlueZ)', () => {
  it('discovers, connects, reads bolt, battery and device information, and confirms lock/unlock', async () => {
    const { lock, address, clock } = newLock();
    const { gateway } = newGateway(clock);
    gateway.addLock({ id: 'front', address, name: 'Front', driver: new EKeyDriver(KEY_HEX) });
    gateway.start();
    await until(() => gateway.getSnapshot('front')?.connected === true, 'connection');
    expect(gateway.getSnapshot('front')).toMatchObject({
      bolt: 'locked',
      online: true,
      batteryLevel: 0.64,
      deviceInformation: { manufacturer: 'Open Lock Project', model: 'SIM-1', serial: address.replace(/:/g, ''), firmware: '1.0.0' },
    });
    expect(await gateway.sendCommand('front', 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(lock.bolt).toBe('unlocked');
    expect(await gateway.sendCommand('front', 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    // Every write chose its type on purpose (node-ble's default would be "reliable").
    expect(new Set(environment.bluez.device(address).log.writeTypes)).toEqual(new Set(['request']));
  });

  it('keeps several locks connected at once, discovering them concurrently', async () => {
    const first = newLock();
    const second = newLock();
    const third = newLock();
    const { gateway } = newGateway(first.clock);
    for (const [index, { address }] of [first, second, third].entries()) gateway.addLock({ id: `lock-${index}`, address, name: `Lock ${index}`, driver: new EKeyDriver(KEY_HEX) });
    gateway.start();
    await until(() => gateway.lockIds().every((id) => gateway.getSnapshot(id)?.connected === true), 'all connections');
    const outcomes = await Promise.all(gateway.lockIds().map((id) => gateway.sendCommand(id, 'unlock')));
    expect(outcomes).toEqual(Array.from({ length: 3 }, () => ({ status: 'completed', bolt: 'unlocked' })));
    expect([first, second, third].map(({ lock }) => lock.bolt)).toEqual(['unlocked', 'unlocked', 'unlocked']);
    expect(environment.bluez.discovering).toBe(false); // discovery was refcounted and stopped after the last find
  });

  it('delivers live notifications: tap activity with the eKey id, battery changes', async () => {
    const { lock, address, clock } = newLock();
    const { gateway } = newGateway(clock);
    const activity: ActivityEvent[] = [];
    const battery: number[] = [];
    gateway.on('activity', (e) => activity.push(e));
    gateway.on('battery', (e) => battery.push(e.level));
    gateway.addLock({ id: 'tap', address, name: 'Tap', driver: new EKeyDriver(KEY_HEX) });
    gateway.start();
    await until(() => gateway.getSnapshot('tap')?.connected === true, 'connection');
    lock.tap(EKEY, 'unlock');
    lock.setBattery(41);
    await until(() => activity.length === 1 && battery.includes(0.41), 'notifications');
    expect(activity[0]?.record).toMatchObject({ sequence: 1, action: 'unlock', source: 'tap', credential: EKEY });
    expect(gateway.getSnapshot('tap')?.bolt).toBe('unlocked');
  });

  it('reads back activity after a reconnect, from the last stored sequence', async () => {
    const { lock, address, clock } = newLock();
    let stored = 0;
    const { gateway } = newGateway(clock, { lastSequence: () => stored });
    const activity: ActivityEvent[] = [];
    gateway.on('activity', (e) => {
      activity.push(e);
      stored = e.record.sequence;
    });
    gateway.addLock({ id: 'back', address, name: 'Back', driver: new EKeyDriver(KEY_HEX) });
    gateway.start();
    await until(() => gateway.getSnapshot('back')?.connected === true, 'connection');
    lock.tap(EKEY, 'unlock');
    await until(() => activity.length === 1, 'live tap');
    lock.goOutOfRange();
    await until(() => gateway.getSnapshot('back')?.connected === false, 'link loss');
    lock.manualTurn('locked');
    lock.tap(EKEY, 'unlock');
    await lock.idle();
    lock.comeBackInRange();
    await until(() => activity.length === 3, 'read-back');
    expect(activity.slice(1).map((e) => [e.record.sequence, e.record.source, e.backlog])).toEqual([
      [2, 'manual', true],
      [3, 'tap', true],
    ]);
  });

  describe('faults end in a defined outcome of their own, not by the command budget running out', () => {
    interface FaultCase {
      name: string;
      faults: FakeDeviceFaults;
      expected: string;
      /** Command timeout, only where the budget running out is the outcome under test. */
      timeoutMs?: number;
      connectTimeoutMs?: number;
      operationTimeoutMs?: number;
      prepare?: (lock: SimulatedLock) => void;
    }
    const cases: FaultCase[] = [
      { name: 'a device that is never found', faults: { neverFound: true }, expected: 'lock_offline', connectTimeoutMs: 800 },
      { name: 'ServicesResolved never arriving', faults: { servicesNeverResolve: true }, expected: 'lock_offline', connectTimeoutMs: 800 },
      { name: 'org.bluez.Error.Failed on connect', faults: { connectError: 'org.bluez.Error.Failed' }, expected: 'lock_offline' },
      { name: 'a connect slower than the connect timeout', faults: { connectDelayMs: 2000 }, expected: 'lock_offline', connectTimeoutMs: 800 },
      { name: 'org.bluez.Error.Failed on the command write', faults: { controlWriteError: 'org.bluez.Error.Failed' }, expected: 'delivery_failed' },
      { name: 'a disconnect in the middle of a command', faults: { disconnectAfterControlWrite: true }, expected: 'delivery_failed' },
      { name: 'a command answer that never arrives', faults: { dropControlNotifications: true }, expected: 'timeout', timeoutMs: 2500 },
      {
        name: 'a jam',
        faults: {},
        expected: 'jammed',
        prepare: (lock) => {
          lock.jamNextMove();
        },
      },
      { name: 'reads and writes slower than their timeout', faults: { operationDelayMs: 1500 }, expected: 'lock_offline', operationTimeoutMs: 300 },
    ];
    for (const testCase of cases) {
      it(`${testCase.name} → ${testCase.expected}`, async () => {
        const { lock, address, clock } = newLock(testCase.faults);
        testCase.prepare?.(lock);
        const { gateway } = newGateway(
          clock,
          { ...(testCase.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: testCase.connectTimeoutMs }) },
          testCase.operationTimeoutMs,
        );
        gateway.addLock({ id: 'faulty', address, name: 'Faulty', driver: new EKeyDriver(KEY_HEX) });
        const outcome = await gateway.sendCommand('faulty', 'unlock', { timeoutMs: testCase.timeoutMs ?? BEYOND_THE_TEST_MS });
        expect(outcome).toEqual({ status: 'failed', reason: testCase.expected });
      });
    }

    it('recovers after a fault clears: the next command completes', async () => {
      const { address, clock } = newLock({ connectError: 'org.bluez.Error.Failed' });
      const { gateway } = newGateway(clock);
      gateway.addLock({ id: 'flaky', address, name: 'Flaky', driver: new EKeyDriver(KEY_HEX) });
      expect(await gateway.sendCommand('flaky', 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
      delete environment.bluez.device(address).faults.connectError;
      expect(await gateway.sendCommand('flaky', 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    });
  });

  it('connection reuse: commands over a kept connection open no connection of their own; a lock added per command connects once each time', async () => {
    const { address, clock } = newLock();
    const { gateway } = newGateway(clock);
    const rounds = 10;
    const log = environment.bluez.device(address).log;
    gateway.addLock({ id: 'kept', address, name: 'Kept', driver: new EKeyDriver(KEY_HEX) });
    gateway.start();
    await until(() => gateway.getSnapshot('kept')?.connected === true, 'connection');
    const keptConnects = log.connects;
    for (let i = 0; i < rounds; i += 1) {
      expect((await gateway.sendCommand('kept', i % 2 === 0 ? 'unlock' : 'lock')).status).toBe('completed');
    }
    // Kept: no command opened a connection of its own.
    expect(log.connects).toBe(keptConnects);
    await gateway.removeLock('kept');
    const disconnectsBefore = log.disconnects;
    const connectsBefore = log.connects;
    for (let i = 0; i < rounds; i += 1) {
      gateway.addLock({ id: 'on-demand', address, name: 'On demand', driver: new EKeyDriver(KEY_HEX) });
      expect((await gateway.sendCommand('on-demand', i % 2 === 0 ? 'unlock' : 'lock')).status).toBe('completed');
      await gateway.removeLock('on-demand');
    }
    // Added and removed around each command: one connection per command, each released again.
    expect(log.connects - connectsBefore).toBe(rounds);
    expect(log.disconnects - disconnectsBefore).toBeGreaterThanOrEqual(rounds);
  });

  it('uses the adapter it is told to, and fails clearly when that adapter does not exist', async () => {
    const { address } = newLock();
    const right = new BluezTransport({ busAddress: environment.busAddress, adapter: 'hci0', discoveryIntervalMs: 20 });
    const wrong = new BluezTransport({ busAddress: environment.busAddress, adapter: 'hci7' });
    cleanups.push(() => right.close(), () => wrong.close());
    const connection = await right.connect(address, EKEY_GATT_PROFILE, { timeoutMs: 1000 });
    expect(connection.connected).toBe(true);
    await connection.disconnect();
    await expect(wrong.connect(address, EKEY_GATT_PROFILE, { timeoutMs: 1000 })).rejects.toThrow('Adapter not found');
  });

  it('reports the link lost when the bus daemon dies, and then fails commands as lock_offline instead of hanging', async () => {
    const ownDaemon = await startPrivateDbusDaemon();
    const ownBluez = await FakeBluez.start(ownDaemon.address);
    const clock = new ManualClock();
    const lock = new SimulatedLock({ address: 'C0:FF:EE:99:00:01', key: Buffer.from(KEY_HEX, 'hex'), name: 'Doomed', clock });
    ownBluez.addLock(lock);
    const transport = new BluezTransport({ busAddress: ownDaemon.address, discoveryIntervalMs: 20, operationTimeoutMs: 300 });
    const gateway = new LockGateway(transport, clock, testLogger(), { connectTimeoutMs: 500, operationTimeoutMs: 300, reconnectBackoff: { initialMs: 50 } });
    cleanups.push(() => gateway.stop());
    gateway.addLock({ id: 'doomed', address: lock.address, name: 'Doomed', driver: new EKeyDriver(KEY_HEX) });
    gateway.start();
    await until(() => gateway.getSnapshot('doomed')?.connected === true, 'connection');
    ownBluez.stop();
    await ownDaemon.stop();
    await until(() => gateway.getSnapshot('doomed')?.connected === false, 'link loss');
    const connectFailures = recordConnectFailures(transport);
    expect(await gateway.sendCommand('doomed', 'unlock', { timeoutMs: BEYOND_THE_TEST_MS })).toEqual({ status: 'failed', reason: 'lock_offline' });
    // A connect found the bus gone: the failure came from the dead bus, not from a timeout.
    expect(connectFailures.at(-1)).toBe('bus_unavailable');
  });

  it('survives an unreachable bus: connect fails with bus_unavailable, the process keeps running', async () => {
    const transport = new BluezTransport({ busAddress: 'unix:path=/nonexistent/bus/socket' });
    cleanups.push(() => transport.close());
    await expect(transport.connect('AA:AA:AA:AA:AA:AA', EKEY_GATT_PROFILE, { timeoutMs: 300 })).rejects.toMatchObject({ name: 'TransportError', failure: 'bus_unavailable' });
    // A second attempt opens a new session and fails the same way instead of hanging.
    await expect(transport.connect('AA:AA:AA:AA:AA:AA', EKEY_GATT_PROFILE, { timeoutMs: 300 })).rejects.toMatchObject({ failure: 'bus_unavailable' });
  });
});
