import { describe, expect, it } from '@jest/globals';
import { keypadCodeOfPasscode } from '../../../../src/families/ttlock/driver/ttlock-keypad-access.js';
import { codeOfKeypadCodeId, keypadCodeIdOf } from '../../../../src/families/ttlock/driver/ttlock-keypad-code-id.js';
import { activityOfTtlockRecord, type TtlockLogContext } from '../../../../src/families/ttlock/driver/ttlock-log-mapping.js';
import { nextOffsetChange } from '../../../../src/families/ttlock/driver/ttlock-zone-clock.js';
import { TtlockLogType, type TtlockLogRecord } from '../../../../src/families/ttlock/protocol/ttlock-operation-log.js';
import { OPEN_END, OPEN_START, TtlockPasscodeType } from '../../../../src/families/ttlock/protocol/ttlock-passcodes.js';

/**
 * docs/design.md §4f, "the operation log becomes events": which record is what activity, in a
 * table; and the ids and windows a TTLock's passcodes get in the service's keypad vocabulary.
 */

const OUR_UID = 0x02acd30b;
const context: TtlockLogContext = { ourUid: OUR_UID, zone: 'Europe/Berlin', since: Date.parse('2026-06-01T00:00:00Z') };
const time = { year: 2026, month: 6, day: 13, hour: 12, minute: 0, second: 5 };
const at = Date.parse('2026-06-13T10:00:05Z');
const record = (type: number, extra: Partial<TtlockLogRecord> = {}): TtlockLogRecord => ({ type, time, battery: 90, tail: Buffer.alloc(0), ...extra });

describe('activityOfTtlockRecord', () => {
  it.each([
    ['our own app unlock (our uid): remote', record(TtlockLogType.appUnlock, { uid: OUR_UID }), { action: 'unlock', source: 'remote' }],
    ['our own Bluetooth lock: remote', record(TtlockLogType.bluetoothLock, { uid: OUR_UID }), { action: 'lock', source: 'remote' }],
    ['another app user’s unlock: no performer (fob)', record(TtlockLogType.appUnlock, { uid: 77 }), { action: 'unlock', source: 'fob' }],
    ['a card', record(TtlockLogType.icUnlock), { action: 'unlock', source: 'fob' }],
    ['a fingerprint lock', record(TtlockLogType.fingerprintLock), { action: 'lock', source: 'fob' }],
    ['the keypad’s lock button (no code)', record(TtlockLogType.keypadLock), { action: 'lock', source: 'fob' }],
    ['the admin code', record(TtlockLogType.adminCodeUnlock, { passcode: '1234567' }), { action: 'unlock', source: 'fob' }],
    ['a key in the cylinder', record(TtlockLogType.keyUnlock), { action: 'unlock', source: 'manual' }],
  ])('%s', (_what, input, expected) => {
    expect(activityOfTtlockRecord(input, 7, context)).toEqual({ sequence: 7, credential: null, timestamp: at, ...expected });
  });

  it('a passcode unlock or lock names the code’s id on the lock (the service finds the eKey by it)', () => {
    expect(activityOfTtlockRecord(record(TtlockLogType.passcodeUnlock, { passcode: '048291' }), 8, context)).toEqual({ sequence: 8, action: 'unlock', source: 'fob', credential: null, timestamp: at, keypadCodeId: keypadCodeIdOf('048291') });
    expect(activityOfTtlockRecord(record(TtlockLogType.passcodeLock, { passcode: '048291' }), 9, context)).toMatchObject({ action: 'lock', keypadCodeId: keypadCodeIdOf('048291') });
  });

  it('a wrong code, and a code outside its window, are refused entries without the digits', () => {
    for (const type of [TtlockLogType.wrongPasscode, TtlockLogType.passcodeExpired]) {
      const activity = activityOfTtlockRecord(record(type, { passcode: '111111' }), 10, context);
      expect(activity).toEqual({ sequence: 10, action: 'unlock', source: 'fob', credential: null, timestamp: at, keypadRefused: true });
      expect(JSON.stringify(activity)).not.toContain('111111');
    }
  });

  it('a record that is no move is nothing (a code added, settings)', () => {
    expect(activityOfTtlockRecord(record(93, { passcode: '048291' }), 11, context)).toBeNull();
    expect(activityOfTtlockRecord(record(8), 12, context)).toBeNull();
  });

  it('history from before the lock joined the service keeps its move and number, nothing more', () => {
    const before = { ...context, since: Date.parse('2026-06-14T00:00:00Z') };
    expect(activityOfTtlockRecord(record(TtlockLogType.passcodeUnlock, { passcode: '048291' }), 3, before)).toEqual({ sequence: 3, action: 'unlock', source: 'fob', credential: null, timestamp: at });
    expect(activityOfTtlockRecord(record(TtlockLogType.appUnlock, { uid: OUR_UID }), 4, before)).toMatchObject({ source: 'fob' });
    expect(activityOfTtlockRecord(record(TtlockLogType.wrongPasscode, { passcode: '1' }), 5, before)).toBeNull();
  });
});

describe('passcodes in the service’s keypad words', () => {
  it('a code’s id is 1 and its digits, both ways, a leading 0 kept', () => {
    expect(keypadCodeIdOf('048291')).toBe(1_048_291);
    expect(codeOfKeypadCodeId(1_048_291)).toBe('048291');
    expect(codeOfKeypadCodeId(keypadCodeIdOf('123456789'))).toBe('123456789');
    expect(codeOfKeypadCodeId(42)).toBeNull();
  });

  it('a permanent code and the SDK’s far period have no bounds; a period is two instants in the lock’s zone', () => {
    expect(keypadCodeOfPasscode({ type: TtlockPasscodeType.permanent, code: '123456', start: OPEN_START, end: null }, 'Europe/Berlin').window).toEqual({ allowedFrom: null, allowedUntil: null, weekdays: [], fromTime: null, untilTime: null });
    expect(keypadCodeOfPasscode({ type: TtlockPasscodeType.period, code: '123456', start: OPEN_START, end: OPEN_END }, 'Europe/Berlin').window.allowedUntil).toBeNull();
    const period = keypadCodeOfPasscode({ type: TtlockPasscodeType.period, code: '123456', start: { ...time, second: 0 }, end: { year: 2026, month: 12, day: 24, hour: 18, minute: 30, second: 0 } }, 'Europe/Berlin');
    expect(period).toMatchObject({ codeId: 1_123_456, name: '', enabled: true });
    expect(period.window.allowedFrom).toBe(Date.parse('2026-06-13T10:00:00Z'));
    expect(period.window.allowedUntil).toBe(Date.parse('2026-12-24T17:30:00Z'));
  });
});

describe('nextOffsetChange: when the lock’s plain clock needs setting again', () => {
  it('finds the next DST change of the lock’s zone, to the instant', () => {
    expect(nextOffsetChange(Date.parse('2026-03-01T00:00:00Z'), 'Europe/Berlin')).toBe(Date.parse('2026-03-29T01:00:00Z'));
    expect(nextOffsetChange(Date.parse('2026-06-01T00:00:00Z'), 'Europe/Berlin')).toBe(Date.parse('2026-10-25T01:00:00Z'));
    expect(nextOffsetChange(Date.parse('2026-06-01T00:00:00Z'), 'Asia/Tokyo')).toBeNull();
  });
});
