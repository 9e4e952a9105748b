import type { ActivityRecord } from '../../../../src/domain/lock-vocabulary.js';
import { describe, expect, it } from '@jest/globals';
import {
  ACTIVITY_RECORD_LENGTH,
  decodeActivityNotification,
  decodeActivityReadSince,
  encodeActivityBacklogEnd,
  encodeActivityReadSince,
  encodeActivityRecord,
} from '../../../../src/families/ekey/protocol/activity-record-codec.js';
import { parseLockKey } from '../../../../src/families/ekey/protocol/frame-authentication.js';
import { decodeBatteryLevel, decodeBoltState, decodeUtf8String, encodeBatteryLevel, encodeBoltState } from '../../../../src/families/ekey/protocol/status-value-codec.js';

const KEY = parseLockKey('11'.repeat(32));
const TAP: ActivityRecord = {
  sequence: 7,
  action: 'unlock',
  source: 'tap',
  credential: '0b6e8c2a-5d1f-4c3e-9a7b-1234567890ab',
  timestamp: Date.UTC(2026, 0, 15, 8, 30, 0, 123),
};

describe('Activity records', () => {
  it('has the documented 64-byte layout with the eKey id in byte order', () => {
    const frame = encodeActivityRecord(TAP, KEY);
    expect(frame.length).toBe(ACTIVITY_RECORD_LENGTH);
    expect(frame.length).toBe(64);
    expect(frame.subarray(0, 2)).toEqual(Buffer.from([0x90, 0x01]));
    expect(frame.readUInt32LE(2)).toBe(7);
    expect(frame.subarray(6, 8)).toEqual(Buffer.from([0x02, 0x01]));
    expect(Number(frame.readBigUInt64LE(8))).toBe(TAP.timestamp);
    expect(frame.subarray(16, 32).toString('hex')).toBe('0b6e8c2a5d1f4c3e9a7b1234567890ab');
  });

  it('round-trips every source, with a null credential when there is none', () => {
    expect(decodeActivityNotification(encodeActivityRecord(TAP, KEY), KEY)).toEqual({ ok: true, value: { kind: 'record', record: TAP } });
    for (const source of ['remote', 'manual', 'triple_tap', 'fob', 'auto'] as const) {
      const record: ActivityRecord = { sequence: 1, action: 'lock', source, credential: null, timestamp: 0 };
      expect(decodeActivityNotification(encodeActivityRecord(record, KEY), KEY)).toEqual({ ok: true, value: { kind: 'record', record } });
    }
  });

  it('rejects truncated, forged and wrong-key records', () => {
    const frame = encodeActivityRecord(TAP, KEY);
    expect(decodeActivityNotification(frame.subarray(0, 63), KEY)).toEqual({ ok: false, reason: 'truncated' });
    expect(decodeActivityNotification(frame, parseLockKey('22'.repeat(32)))).toEqual({ ok: false, reason: 'bad_tag' });
    const forged = Buffer.from(frame);
    forged[20] = (forged[20] ?? 0) ^ 0xff; // someone else's eKey id
    expect(decodeActivityNotification(forged, KEY)).toEqual({ ok: false, reason: 'bad_tag' });
  });

  it('refuses a credential that is not a UUID', () => {
    expect(() => encodeActivityRecord({ ...TAP, credential: 'not-a-uuid' }, KEY)).toThrow('not a UUID');
  });

  it('decodes the backlog end and the read-since request', () => {
    const end = encodeActivityBacklogEnd({ highestSequence: 12, oldestAvailable: 3, sent: 4 });
    expect(end.length).toBe(12);
    expect(decodeActivityNotification(end, KEY)).toEqual({ ok: true, value: { kind: 'backlog_end', end: { highestSequence: 12, oldestAvailable: 3, sent: 4 } } });
    const since = encodeActivityReadSince(0x01020304);
    expect(since).toEqual(Buffer.from([0x10, 0x01, 0x04, 0x03, 0x02, 0x01]));
    expect(decodeActivityReadSince(since)).toEqual({ ok: true, value: { since: 0x01020304 } });
    expect(decodeActivityReadSince(since.subarray(0, 5))).toEqual({ ok: false, reason: 'truncated' });
    expect(decodeActivityNotification(Buffer.from([0x55, 0x01, 0, 0]), KEY)).toEqual({ ok: false, reason: 'wrong_frame_type' });
  });
});

describe('status values', () => {
  it('encodes Bolt State as position then source, and reads 1-byte values from minimal firmware', () => {
    expect(encodeBoltState({ bolt: 'locked', source: 'fob' })).toEqual(Buffer.from([0x01, 0x05]));
    expect(decodeBoltState(Buffer.from([0x02, 0x02]))).toEqual({ ok: true, value: { bolt: 'jammed', source: 'remote' } });
    expect(decodeBoltState(Buffer.from([0x00]))).toEqual({ ok: true, value: { bolt: 'unlocked', source: null } });
    expect(decodeBoltState(Buffer.from([0x03, 0x00]))).toEqual({ ok: true, value: { bolt: 'moving', source: null } });
    expect(decodeBoltState(Buffer.from([0x09]))).toEqual({ ok: false, reason: 'bad_value' });
    expect(decodeBoltState(Buffer.alloc(0))).toEqual({ ok: false, reason: 'truncated' });
  });

  it('reads Battery Level percent as a 0..1 fraction', () => {
    expect(decodeBatteryLevel(encodeBatteryLevel(42))).toEqual({ ok: true, value: 0.42 });
    expect(encodeBatteryLevel(150)).toEqual(Buffer.from([100]));
    expect(decodeBatteryLevel(Buffer.from([101]))).toEqual({ ok: false, reason: 'bad_value' });
  });

  it('strips NUL padding from Device Information strings', () => {
    expect(decodeUtf8String(Buffer.from('1.2.3\0\0', 'utf8'))).toBe('1.2.3');
  });
});
