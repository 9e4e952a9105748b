import { afterEach, describe, expect, it } from '@jest/globals';
import type { ActivityRecord } from '../../../../src/domain/lock-vocabulary.js';
import type { LockGateway } from '../../../../src/gateway/lock-gateway.js';
import { SimulatorTransport } from '../../../../src/gateway/transports/simulator/simulator-transport.js';
import { keypadCodeIdOf } from '../../../../src/families/ttlock/driver/ttlock-keypad-code-id.js';
import { TtlockLogType } from '../../../../src/families/ttlock/protocol/ttlock-operation-log.js';
import { formatWallClock, wallClockAt } from '../../../../src/families/ttlock/protocol/ttlock-wall-clock.js';
import type { SimulatedTtlock } from '../../../../src/families/ttlock/simulator/simulated-ttlock.js';
import { gatewayRecordingLogger } from '../../../support/nuki-gateway-rig.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { until } from '../../../support/polling.js';
import type { RecordingLogger } from '../../../support/recording-logger.js';
import { pairedSimulatedTtlock, TTLOCK_TEST_UID, ttlockGateway, type TtlockGatewayRig } from '../../../support/ttlock-gateway-rig.js';
import { failOnUnhandledRejections } from '../../../support/unhandled-rejections.js';

/**
 * The TTLock driver and the gateway core over the simulator transport, against a simulated TTLock
 * that speaks the real frames (docs/design.md §4f): commands per connection, the ~5 s idle drop,
 * retries within the deadline, battery, the lock's clock, the operation log into activity.
 */

failOnUnhandledRejections({ settleMs: 20 });

const LOCK_ID = 'side-door';
const ADDRESS = 'D0:E1:00:00:00:55';
const ZONE = 'Europe/Berlin';

interface Rig extends TtlockGatewayRig {
  clock: ManualClock;
  lock: SimulatedTtlock;
  transport: SimulatorTransport;
  logger: RecordingLogger;
}

const gateways: LockGateway[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.stop();
});

function rig(options: { idleDropMs?: number; driver?: Parameters<typeof ttlockGateway>[3]['driver']; credentials?: Parameters<typeof ttlockGateway>[3]['credentials']; commandTimeoutMs?: number; batteryPercent?: number } = {}): Rig {
  const clock = new ManualClock(Date.parse('2026-06-13T10:00:00Z'));
  const lock = pairedSimulatedTtlock({ address: ADDRESS, name: 'Side Door', clock, timeZone: ZONE, batteryPercent: options.batteryPercent ?? 87, idleDropMs: options.idleDropMs ?? 5_000 });
  const transport = new SimulatorTransport([lock], { advertisementIntervalMs: 50 });
  const logger = gatewayRecordingLogger();
  const built = ttlockGateway(transport, clock, { id: LOCK_ID, address: ADDRESS }, {
    logger,
    ...(options.driver === undefined ? {} : { driver: options.driver }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    gateway: { connectTimeoutMs: 1_000, operationTimeoutMs: 1_000, commandTimeoutMs: options.commandTimeoutMs ?? 4_000 },
  });
  gateways.push(built.gateway);
  return { ...built, clock, lock, transport, logger };
}

/** Starts the gateway; resolves once a full read of the lock (state, device information, clock, log) has ended and the link is released. */
async function started(r: Rig): Promise<void> {
  r.gateway.start();
  expect(await r.gateway.refresh(LOCK_ID)).toBe(true);
  await until(() => r.gateway.getSnapshot(LOCK_ID)?.connected === false, 'the link released');
}

const records = (r: Rig): ActivityRecord[] => r.activity.map((event) => event.record);

describe('TTLock driver over the simulator transport', () => {
  it('reads battery, the bolt it advertises and its device information; locks and unlocks with the challenge answer', async () => {
    const r = rig();
    await started(r);
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ family: 'ttlock', bolt: 'locked', batteryLevel: 0.87, online: true, deviceInformation: { manufacturer: 'Sciener', firmware: '6.1.21' } });
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(r.lock.bolt).toBe('unlocked');
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    expect(r.lock.bolt).toBe('locked');
    // The lock logged both under our uid: read back, they are our own remote commands (no event of their own).
    await until(() => r.activity.length >= 2, 'the commands read back from the log');
    expect(records(r).map((record) => [record.action, record.source])).toEqual([
      ['unlock', 'remote'],
      ['lock', 'remote'],
    ]);
    expect(r.lock.logEntries().map((entry) => [entry.type, entry.uid])).toEqual([
      [TtlockLogType.appUnlock, TTLOCK_TEST_UID],
      [TtlockLogType.bluetoothLock, TTLOCK_TEST_UID],
    ]);
  });

  it('connects per command: the lock drops an idle link by itself, and the next command connects again', async () => {
    // The lock's idle drop (here 150 ms) comes before the driver's own release (5 s).
    const r = rig({ idleDropMs: 150, driver: { idleDisconnectMs: 5_000 } });
    await started(r);
    await until(() => r.logger.text().includes('link lost'), 'the lock dropping the link');
    expect(r.logger.text()).not.toContain('released after');
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    await until(() => r.gateway.getSnapshot(LOCK_ID)?.connected === false, 'the next drop');
    expect(await r.gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
  });

  it('tries again within the deadline when the lock drops the link before answering', async () => {
    const r = rig();
    await started(r);
    r.lock.faults.dropBeforeAnswer = 2;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(r.lock.faults.dropBeforeAnswer).toBe(0);
    expect(r.logger.text()).toContain('the link dropped during the unlock; trying again');
  });

  it('never leaves a command hanging: a lock that takes the link but never answers the command is a timeout at the deadline', async () => {
    const r = rig({ commandTimeoutMs: 600 });
    await started(r);
    r.lock.faults.ignoreBoltCommands = true;
    const began = performance.now();
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'timeout' });
    // Ended by its 0.6 s deadline: a bound for a loaded machine, not a speed claim.
    expect(performance.now() - began).toBeLessThan(3_000);
    expect(r.lock.bolt).toBe('locked');
  });

  it('never leaves a command hanging: a lock that answers nothing at all is lock_offline at the deadline', async () => {
    const r = rig({ commandTimeoutMs: 600 });
    await started(r);
    r.lock.faults.silent = true;
    const began = performance.now();
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
    expect(performance.now() - began).toBeLessThan(3_000);
  });

  it('a lock out of reach is lock_offline within the deadline', async () => {
    const r = rig({ commandTimeoutMs: 600 });
    await started(r);
    r.lock.goOutOfRange();
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'lock_offline' });
  });

  it('a motor that cannot finish its move is jammed ("operation failed"), until turned by hand', async () => {
    const r = rig();
    await started(r);
    r.lock.jamNextMove();
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'jammed' });
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('jammed');
    // The lock's advertisements (still "locked") and a read of it do not make the jam go away.
    await new Promise<void>((resolve) => r.gateway.once('advertised', () => { resolve(); }));
    expect(await r.gateway.refresh(LOCK_ID)).toBe(true);
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('jammed');
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'jammed' });
    r.lock.manualTurn('locked');
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
  });

  it('a lock that no longer takes the service’s admin secrets: the command fails, and the log says to pair again, once', async () => {
    const r = rig({ credentials: { adminPs: 12_345 } });
    r.gateway.start();
    await until(() => r.gateway.getSnapshot(LOCK_ID)?.batteryLevel !== null, 'the status read');
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'failed', reason: 'delivery_failed' });
    expect(r.lock.bolt).toBe('locked');
    expect(r.logger.lines.filter((line) => line.level === 'error' && line.message.includes('no longer accepts the service'))).toHaveLength(1);
  });

  it('does not see a turn by hand: the bolt stays where the lock drove it (an assumed state)', async () => {
    const r = rig();
    await started(r);
    r.lock.manualTurn('unlocked');
    expect(r.lock.physicalBolt).toBe('unlocked');
    expect(await r.gateway.refresh(LOCK_ID)).toBe(true);
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('locked');
  });

  it('connects to a lock that answers no status query: the advertisement tells its bolt and battery', async () => {
    const r = rig();
    r.lock.faults.refuseCommands = [0x14];
    await started(r);
    expect(r.gateway.getSnapshot(LOCK_ID)).toMatchObject({ bolt: 'locked', batteryLevel: 0.87, online: true });
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
  });

  it('reads a reply whose CRC does not match when it decrypts, and says so once', async () => {
    const r = rig();
    await started(r);
    r.lock.faults.badCrcNext = true;
    expect(await r.gateway.sendCommand(LOCK_ID, 'unlock')).toEqual({ status: 'completed', bolt: 'unlocked' });
    expect(r.logger.lines.filter((line) => line.message.includes("CRC did not match"))).toHaveLength(1);
  });

  it('follows the battery the lock advertises', async () => {
    const r = rig();
    await started(r);
    r.lock.setBattery(19);
    await until(() => r.gateway.getSnapshot(LOCK_ID)?.batteryLevel === 0.19, 'the new battery level');
  });
});

describe('the lock’s clock', () => {
  it('is set to local time when it is off by more than 60 s at a connect, and left alone within a minute', async () => {
    const r = rig();
    r.lock.setClockOffset(45);
    await started(r);
    expect(r.logger.text()).not.toContain('its clock was off');
    r.lock.setClockOffset(-600);
    expect(await r.gateway.refresh(LOCK_ID)).toBe(true);
    expect(r.logger.text()).toContain('its clock was off by -600 s; set it.');
    expect(formatWallClock(r.lock.lockTime())).toBe(formatWallClock(wallClockAt(r.clock.now(), ZONE)));
  });
});

describe('the operation log', () => {
  it('a keypad entry flags news in the advertisement: the log is read, the entry names the code’s id on the lock', async () => {
    const r = rig();
    await started(r);
    r.lock.addVendorCode('482913');
    expect(r.lock.typeCode('482913', 'unlock')).toBe('unlocked');
    await until(() => r.activity.length === 1, 'the keypad entry read from the log');
    expect(records(r)[0]).toMatchObject({ action: 'unlock', source: 'fob', keypadCodeId: keypadCodeIdOf('482913'), credential: null });
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('unlocked');
    // The digits go no further than the id: never into a log line.
    expect(r.logger.text()).not.toContain('482913');
  });

  it('a wrong code is a refused keypad entry, without the digits', async () => {
    const r = rig();
    await started(r);
    expect(r.lock.typeCode('111111', 'unlock')).toBe('refused');
    await until(() => r.activity.length === 1, 'the refused entry read from the log');
    expect(records(r)[0]).toMatchObject({ action: 'unlock', keypadRefused: true, credential: null });
    expect(records(r)[0]?.keypadCodeId).toBeUndefined();
    expect(r.gateway.getSnapshot(LOCK_ID)?.bolt).toBe('locked');
  });

  it('reads what happened while the lock was out of reach after it is back, every record once, as backlog', async () => {
    const r = rig();
    await started(r);
    r.lock.addVendorCode('739154');
    r.lock.goOutOfRange();
    await until(() => !r.gateway.isReachable(LOCK_ID) || r.gateway.getSnapshot(LOCK_ID)?.connected === false, 'the lock away');
    for (let turn = 0; turn < 3; turn += 1) {
      r.lock.typeCode('739154', 'unlock');
      r.lock.typeCode('739154', 'lock');
    }
    r.lock.comeBackInRange();
    await until(() => r.activity.length >= 6, 'six records read back');
    expect(r.activity.map((event) => [event.record.sequence, event.record.action])).toEqual([
      [1, 'unlock'],
      [2, 'lock'],
      [3, 'unlock'],
      [4, 'lock'],
      [5, 'unlock'],
      [6, 'lock'],
    ]);
    expect(await r.gateway.refresh(LOCK_ID)).toBe(true);
    expect(r.activity).toHaveLength(6);
  });

  it('reads a long log a few records per connect, so a command never waits behind it', async () => {
    const r = rig({ driver: { logRecordsPerRead: 3 } });
    r.lock.addVendorCode('739154');
    for (let turn = 0; turn < 4; turn += 1) {
      r.lock.typeCode('739154', 'unlock');
      r.lock.typeCode('739154', 'lock');
    }
    r.gateway.start();
    await until(() => r.activity.length === 8, 'all eight records, over several reads');
    expect(r.activity.map((event) => event.record.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('replays no keypad entry from before the lock joined the service', async () => {
    const r = rig({ credentials: { since: Date.parse('2026-06-13T10:30:00Z') } });
    r.lock.addVendorCode('739154');
    r.lock.typeCode('739154', 'unlock');
    r.lock.typeCode('000000', 'unlock');
    r.clock.set(Date.parse('2026-06-13T11:00:00Z'));
    r.lock.typeCode('739154', 'lock');
    r.gateway.start();
    await until(() => r.activity.length === 2, 'the two moves read');
    expect(records(r).map((record) => [record.sequence, record.action, record.keypadCodeId ?? null])).toEqual([
      [1, 'unlock', null],
      [3, 'lock', keypadCodeIdOf('739154')],
    ]);
  });
});
