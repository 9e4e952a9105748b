import { describe, expect, it } from '@jest/globals';
import { decodeActivityNotification, encodeActivityReadSince, type ActivityNotification } from '../../../../src/families/ekey/protocol/activity-record-codec.js';
import { decodeControlResponse, encodeControlRequest, type ControlResponse } from '../../../../src/families/ekey/protocol/control-frame-codec.js';
import { LockUuids } from '../../../../src/families/ekey/protocol/lock-profile.js';
import { GattOperationError, SimulatedLock, type SimulatedLockLink } from '../../../../src/families/ekey/simulator/simulated-lock.js';
import { decodeBoltState } from '../../../../src/families/ekey/protocol/status-value-codec.js';
import { ManualClock } from '../../../support/manual-clock.js';

const KEY = Buffer.alloc(32, 7);
const EKEY = 'a3bb189e-8bf9-3888-9912-ace4e6543002';

function setUp(options: { motorTimeMs?: number } = {}): { lock: SimulatedLock; clock: ManualClock; link: SimulatedLockLink; notes: [string, Buffer][] } {
  const clock = new ManualClock();
  const lock = new SimulatedLock({ address: 'aa:bb:cc:00:00:01', key: KEY, name: 'Sim', clock, ...options });
  const link = lock.openLink();
  const notes: [string, Buffer][] = [];
  link.onNotification((uuid, value) => notes.push([uuid, value]));
  return { lock, clock, link, notes };
}

/** Waits for the motor, then lets queued notifications (delivered with setImmediate, in order) arrive. */
async function settle(lock: SimulatedLock): Promise<void> {
  await lock.idle();
  await new Promise((resolve) => setImmediate(resolve));
}

function responses(notes: [string, Buffer][]): ControlResponse[] {
  return notes.filter(([uuid]) => uuid === LockUuids.controlPoint).map(([, v]) => {
    const decoded = decodeControlResponse(v, KEY);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value;
  });
}

function activity(notes: [string, Buffer][]): ActivityNotification[] {
  return notes.filter(([uuid]) => uuid === LockUuids.activity).map(([, v]) => {
    const decoded = decodeActivityNotification(v, KEY);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value;
  });
}

describe('SimulatedLock', () => {
  it('moves the bolt on an authenticated command, answers ok and records a remote activity', async () => {
    const { lock, link, notes, clock } = setUp();
    link.write(LockUuids.controlPoint, encodeControlRequest({ opcode: 'unlock', requestId: 5, counter: 1n }, KEY));
    expect(lock.bolt).toBe('moving');
    await settle(lock);
    expect(lock.bolt).toBe('unlocked');
    expect(responses(notes)).toEqual([{ opcodeByte: 2, requestId: 5, requestCounter: 1n, result: 'ok', bolt: 'unlocked', highestCounter: 1n }]);
    expect(lock.activity).toEqual([{ sequence: 1, action: 'unlock', source: 'remote', credential: null, timestamp: clock.now() }]);
    const bolts = notes.filter(([uuid]) => uuid === LockUuids.boltState).map(([, v]) => decodeBoltState(v));
    expect(bolts.map((b) => (b.ok ? b.value.bolt : b.reason))).toEqual(['moving', 'unlocked']);
  });

  it('refuses a replayed frame without moving', async () => {
    const { lock, link, notes } = setUp();
    const frame = encodeControlRequest({ opcode: 'unlock', requestId: 1, counter: 10n }, KEY);
    link.write(LockUuids.controlPoint, frame);
    await settle(lock);
    lock.manualTurn('locked');
    link.write(LockUuids.controlPoint, frame);
    await settle(lock);
    expect(lock.bolt).toBe('locked');
    expect(responses(notes).map((r) => r.result)).toEqual(['ok', 'stale_counter']);
  });

  it('refuses a forged frame and an unknown opcode with their result codes', async () => {
    const { lock, link, notes } = setUp();
    link.write(LockUuids.controlPoint, encodeControlRequest({ opcode: 'unlock', requestId: 1, counter: 1n }, Buffer.alloc(32, 9)));
    const unknown = encodeControlRequest({ opcode: 'unlock', requestId: 2, counter: 2n }, KEY);
    unknown[2] = 0x33;
    link.write(LockUuids.controlPoint, unknown);
    await settle(lock);
    expect(responses(notes).map((r) => [r.requestId, r.result])).toEqual([
      [1, 'bad_tag'],
      [2, 'bad_tag'],
    ]);
    expect(lock.bolt).toBe('locked');
    expect(() => {
      link.write(LockUuids.controlPoint, Buffer.alloc(4));
    }).toThrow(GattOperationError);
  });

  it('jams on the next motorised move and stays jammed until a manual turn', async () => {
    const { lock, link, notes } = setUp();
    lock.jamNextMove();
    link.write(LockUuids.controlPoint, encodeControlRequest({ opcode: 'unlock', requestId: 1, counter: 1n }, KEY));
    await settle(lock);
    expect(lock.bolt).toBe('jammed');
    lock.fob('unlock');
    await settle(lock);
    expect(lock.bolt).toBe('jammed');
    lock.manualTurn('unlocked');
    expect(lock.bolt).toBe('unlocked');
    lock.fob('lock');
    await lock.idle();
    expect(lock.bolt).toBe('locked');
    expect(responses(notes).map((r) => [r.result, r.bolt])).toEqual([['jammed', 'jammed']]);
    expect(lock.activity.map((r) => [r.sequence, r.action, r.source])).toEqual([
      [1, 'unlock', 'manual'],
      [2, 'lock', 'fob'],
    ]);
  });

  it('records taps with the eKey id and the other sources without one', async () => {
    const { lock } = setUp();
    lock.tap(EKEY.toUpperCase(), 'unlock');
    await lock.idle();
    lock.tripleTap();
    await lock.idle();
    lock.fob('unlock');
    await lock.idle();
    lock.autoLock();
    await lock.idle();
    expect(lock.activity.map((r) => [r.source, r.credential])).toEqual([
      ['tap', EKEY],
      ['triple_tap', null],
      ['fob', null],
      ['auto', null],
    ]);
  });

  it('answers read-since with the records after the sequence, then the backlog end', async () => {
    const { lock, link, notes } = setUp();
    lock.fob('unlock');
    await lock.idle();
    lock.fob('lock');
    await lock.idle();
    await settle(lock);
    notes.length = 0;
    link.write(LockUuids.activity, encodeActivityReadSince(1));
    await settle(lock);
    expect(activity(notes)).toEqual([
      { kind: 'record', record: expect.objectContaining({ sequence: 2, source: 'fob', action: 'lock' }) as unknown },
      { kind: 'backlog_end', end: { highestSequence: 2, oldestAvailable: 1, sent: 1 } },
    ]);
  });

  it('overwrites the oldest records beyond its capacity but never reuses a sequence', async () => {
    const lock = new SimulatedLock({ address: 'AA:00:00:00:00:09', key: KEY, name: 'Small', clock: new ManualClock(), activityCapacity: 2 });
    for (const bolt of ['unlocked', 'locked', 'unlocked'] as const) lock.manualTurn(bolt);
    await settle(lock);
    expect(lock.activity.map((r) => r.sequence)).toEqual([2, 3]);
  });

  it('goes out of range: links drop, it refuses connections, and it keeps recording', async () => {
    const { lock, link } = setUp();
    let lost = false;
    link.onLost(() => {
      lost = true;
    });
    lock.goOutOfRange();
    await settle(lock);
    expect(lost).toBe(true);
    expect(link.open).toBe(false);
    expect(() => lock.openLink()).toThrow('out of range');
    lock.tap(EKEY, 'unlock');
    await lock.idle();
    expect(lock.activity).toHaveLength(1);
    lock.comeBackInRange();
    expect(lock.openLink().read(LockUuids.boltState)).toEqual(Buffer.from([0x00, 0x01]));
  });

  it('keeps the motor running for the configured time', async () => {
    const { lock } = setUp({ motorTimeMs: 30 });
    const started = performance.now();
    lock.fob('unlock');
    expect(lock.isMoving).toBe(true);
    expect(lock.bolt).toBe('moving');
    await lock.idle();
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(lock.bolt).toBe('unlocked');
  });

  it('serves battery and device information reads', () => {
    const { lock, link } = setUp();
    lock.setBattery(33);
    expect(link.read(LockUuids.batteryLevel)).toEqual(Buffer.from([33]));
    expect(link.read(LockUuids.serialNumber).toString()).toBe('AABBCC000001');
    expect(() => link.read(LockUuids.controlPoint)).toThrow(GattOperationError);
  });
});
