import { EKeyDriver } from '../../../src/families/ekey/driver/ekey-driver.js';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ActivityEvent, BoltChangedEvent, ConnectivityChangedEvent } from '../../../src/gateway/gateway-events.js';
import { testLogger } from '../../support/fake-bluez/test-logger.js';
import { LockGateway, type LockGatewayOptions } from '../../../src/gateway/lock-gateway.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { SimulatorTransport } from '../../../src/gateway/transports/simulator/simulator-transport.js';
import { ManualClock } from '../../support/manual-clock.js';
import { until } from '../../support/polling.js';

const KEY_HEX = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
const OTHER_KEY_HEX = 'ff'.repeat(32);
const LOCK_ID = '6f1c2a8e-0000-4000-8000-000000000001';
const ADDRESS = 'AA:BB:CC:DD:EE:01';
const EKEY = '0b6e8c2a-5d1f-4c3e-9a7b-1234567890ab';

interface Rig {
  clock: ManualClock;
  lock: SimulatedLock;
  transport: SimulatorTransport;
  gateway: LockGateway;
  bolts: BoltChangedEvent[];
  activity: ActivityEvent[];
  connectivity: ConnectivityChangedEvent[];
}

const rigs: Rig[] = [];

function rig(options: LockGatewayOptions = {}, lockKeyHex = KEY_HEX): Rig {
  const clock = new ManualClock();
  const lock = new SimulatedLock({ address: ADDRESS, key: Buffer.from(lockKeyHex, 'hex'), name: 'Front door', clock, bolt: 'locked', batteryPercent: 80 });
  const transport = new SimulatorTransport([lock]);
  const gateway = new LockGateway(transport, clock, testLogger(), {
    connectTimeoutMs: 2000,
    operationTimeoutMs: 2000,
    reconnectBackoff: { initialMs: 5, maxMs: 20 },
    ...options,
  });
  const r: Rig = { clock, lock, transport, gateway, bolts: [], activity: [], connectivity: [] };
  gateway.on('bolt', (e) => r.bolts.push(e));
  gateway.on('activity', (e) => r.activity.push(e));
  gateway.on('connectivity', (e) => r.connectivity.push(e));
  gateway.addLock({ id: LOCK_ID, address: ADDRESS.toLowerCase(), name: 'Front door', driver: new EKeyDriver(KEY_HEX) });
  rigs.push(r);
  return r;
}

afterEach(async () => {
  for (const r of rigs.splice(0)) await r.gateway.stop();
});

/** Counts the transport's connects that failed, observing the real transport (every call still goes through). */
function countFailedConnects(transport: SimulatorTransport): { failed: number } {
  const counter = { failed: 0 };
  const connect = transport.connect.bind(transport);
  transport.connect = (...args) =>
    connect(...args).catch((error: unknown) => {
      counter.failed += 1;
      throw error;
    });
  return counter;
}

describe('LockGateway with the simulator transport', () => {
  it('connects on start and answers the snapshot from memory', async () => {
    const { gateway, clock } = rig();
    expect(gateway.getSnapshot(LOCK_ID)?.online).toBe(false);
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === true, 'connection');
    const snapshot = gateway.getSnapshot(LOCK_ID);
    expect(snapshot).toMatchObject({ bolt: 'locked', online: true, batteryLevel: 0.8, lastSeenAt: clock.now() });
    expect(snapshot?.deviceInformation).toEqual({ manufacturer: 'Open Lock Project', model: 'SIM-1', serial: 'AABBCCDDEE01', firmware: '1.0.0' });
    expect(gateway.isReachable(LOCK_ID)).toBe(true);
  });

  it('completes an unlock only once the lock confirms the bolt moved', async () => {
    const { gateway, lock, bolts } = rig();
    gateway.start();
    const outcome = await gateway.sendCommand(LOCK_ID, 'unlock');
    expect(outcome).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(lock.bolt).toBe('unlocked');
    expect(gateway.getSnapshot(LOCK_ID)?.bolt).toBe('unlocked');
    expect(bolts).toContainEqual({ lockId: LOCK_ID, bolt: 'unlocked', source: 'remote' });
  });

  it('reports a jam as a failed command and a jammed bolt', async () => {
    const { gateway, lock } = rig();
    gateway.start();
    lock.jamNextMove();
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'jammed' });
    expect(gateway.getSnapshot(LOCK_ID)?.bolt).toBe('jammed');
    // Still jammed for the next motorised move, until someone turns it by hand.
    expect(await gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'failed', reason: 'jammed' });
    lock.manualTurn('unlocked');
    await until(() => gateway.getSnapshot(LOCK_ID)?.bolt === 'unlocked', 'manual turn');
    expect(await gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
  });

  it('fails with lock_offline when the lock is out of range and with lock_offline for unknown ids', async () => {
    const { gateway, lock } = rig();
    lock.goOutOfRange();
    gateway.start();
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
    expect(await gateway.sendCommand('no-such-lock', 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
  });

  it('times out when the lock never answers within the command timeout', async () => {
    const { gateway, transport } = rig({ commandTimeoutMs: 100 });
    const slowLock = new SimulatedLock({ address: 'AA:BB:CC:DD:EE:02', key: Buffer.from(KEY_HEX, 'hex'), name: 'Slow', clock: new ManualClock(), motorTimeMs: 400 });
    transport.addLock(slowLock);
    gateway.addLock({ id: 'slow', address: slowLock.address, name: 'Slow', driver: new EKeyDriver(KEY_HEX) });
    gateway.start();
    await until(() => gateway.getSnapshot('slow')?.connected === true, 'connection');
    const started = performance.now();
    expect(await gateway.sendCommand('slow', 'unlock')).toEqual({ status: 'failed', reason: 'timeout' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(slowLock.isMoving).toBe(true); // the lock is still working on it: no answer yet
    await slowLock.idle();
  });

  it('refuses to trust a lock whose key differs: delivery_failed, not completed', async () => {
    const { gateway, lock } = rig({}, OTHER_KEY_HEX);
    gateway.start();
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(lock.bolt).toBe('locked');
  });

  it('fails a command whose link drops before the answer with delivery_failed', async () => {
    const clock = new ManualClock();
    const lock = new SimulatedLock({ address: ADDRESS, key: Buffer.from(KEY_HEX, 'hex'), name: 'Door', clock, motorTimeMs: 100 });
    const gateway = new LockGateway(new SimulatorTransport([lock]), clock, testLogger(), { reconnectBackoff: { initialMs: 5 } });
    rigs.push({ clock, lock, transport: new SimulatorTransport(), gateway, bolts: [], activity: [], connectivity: [] });
    gateway.addLock({ id: LOCK_ID, address: ADDRESS, name: 'Door', driver: new EKeyDriver(KEY_HEX) });
    gateway.start();
    const outcome = gateway.sendCommand(LOCK_ID, 'unlock');
    await until(() => lock.isMoving, 'motor start');
    lock.goOutOfRange();
    expect(await outcome).toEqual({ status: 'failed', reason: 'delivery_failed' });
  });

  it('emits tap activity with the eKey id and the bolt change with its source', async () => {
    const { gateway, lock, activity, bolts } = rig();
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === true, 'connection');
    lock.tap(EKEY, 'unlock');
    await until(() => activity.length === 1, 'activity');
    expect(activity[0]).toMatchObject({ lockId: LOCK_ID, backlog: false, record: { sequence: 1, action: 'unlock', source: 'tap', credential: EKEY } });
    expect(bolts).toContainEqual({ lockId: LOCK_ID, bolt: 'unlocked', source: 'tap' });
    expect(gateway.getSnapshot(LOCK_ID)?.lastActivitySource).toBe('tap');
  });

  it('reads back what happened while the lock was out of reach, after the last stored sequence', async () => {
    let stored = 0;
    const { gateway, lock, activity } = rig({ lastSequence: () => stored });
    gateway.on('activity', (e) => {
      stored = e.record.sequence;
    });
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === true, 'connection');
    lock.tap(EKEY, 'unlock');
    await until(() => activity.length === 1, 'live record');
    lock.goOutOfRange();
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === false, 'link loss');
    lock.manualTurn('locked');
    lock.fob('unlock');
    await lock.idle();
    lock.tripleTap();
    await lock.idle();
    lock.comeBackInRange();
    await until(() => activity.length === 4, 'backlog');
    expect(activity.slice(1).map((e) => [e.record.sequence, e.record.source, e.backlog])).toEqual([
      [2, 'manual', true],
      [3, 'fob', true],
      [4, 'triple_tap', true],
    ]);
    expect(gateway.getSnapshot(LOCK_ID)?.bolt).toBe('locked');
  });

  it('goes offline only after offlineAfterS without contact, and online again on reconnect', async () => {
    const { gateway, lock, clock, connectivity } = rig({ offlineAfterS: 120, reconnectBackoff: { initialMs: 10_000 } });
    gateway.start();
    await until(() => connectivity.length === 1, 'online');
    lock.goOutOfRange();
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === false, 'link loss');
    clock.advance(119_000);
    gateway.checkPresence();
    expect(gateway.isReachable(LOCK_ID)).toBe(true);
    clock.advance(1_000);
    gateway.checkPresence();
    expect(gateway.isReachable(LOCK_ID)).toBe(false);
    expect(connectivity).toEqual([
      { lockId: LOCK_ID, online: true },
      { lockId: LOCK_ID, online: false },
    ]);
    lock.comeBackInRange();
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(connectivity.at(-1)).toEqual({ lockId: LOCK_ID, online: true });
  });

  it('keeps retrying with backoff while the lock is away, and reconnects by itself when it returns', async () => {
    const { gateway, lock, transport, connectivity } = rig({ reconnectBackoff: { initialMs: 5, maxMs: 10 } });
    const connects = countFailedConnects(transport);
    lock.goOutOfRange();
    gateway.start();
    await until(() => connects.failed >= 3, 'three failed connection attempts');
    expect(gateway.getSnapshot(LOCK_ID)?.connected).toBe(false);
    lock.comeBackInRange();
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === true, 'reconnect without a command');
    expect(connectivity).toEqual([{ lockId: LOCK_ID, online: true }]);
  });

  it('survives a listener that throws and a lastSequence provider that fails', async () => {
    const { gateway, lock, activity } = rig({
      lastSequence: () => {
        throw new Error('store is down');
      },
    });
    gateway.on('bolt', () => {
      throw new Error('listener bug');
    });
    gateway.start();
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === true, 'connection');
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    lock.tap(EKEY, 'lock');
    await until(() => activity.length === 2, 'activity after the throwing listener');
    expect(gateway.getSnapshot(LOCK_ID)?.bolt).toBe('locked');
  });

  it('runs commands to one lock one at a time in call order', async () => {
    const { gateway, lock } = rig();
    gateway.start();
    const outcomes = await Promise.all([gateway.sendCommand(LOCK_ID, 'unlock'), gateway.sendCommand(LOCK_ID, 'lock'), gateway.sendCommand(LOCK_ID, 'unlock')]);
    expect(outcomes).toEqual([
      { status: 'completed', bolt: 'unlocked' },
      { status: 'completed', bolt: 'locked' },
      { status: 'completed', bolt: 'unlocked' },
    ]);
    expect(lock.activity.map((r) => r.action)).toEqual(['unlock', 'lock', 'unlock']);
  });

  it('resynchronises its counter when the lock has seen higher counters (e.g. after a clock step back)', async () => {
    const { gateway, clock } = rig();
    gateway.start();
    expect((await gateway.sendCommand(LOCK_ID, 'unlock')).status).toBe('completed');
    // A second gateway instance (restart) whose clock is an hour behind: its first counter is stale.
    await gateway.removeLock(LOCK_ID);
    clock.advance(-3_600_000);
    gateway.addLock({ id: LOCK_ID, address: ADDRESS, name: 'Front door', driver: new EKeyDriver(KEY_HEX) });
    expect(await gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
  });

  it('stops cleanly: commands afterwards are lock_offline and no timers keep running', async () => {
    const { gateway, lock } = rig();
    gateway.start();
    await until(() => lock.connectionCount === 1, 'connection');
    await gateway.stop();
    expect(lock.connectionCount).toBe(0);
    expect(await gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
  });
});
