import { describe, expect, it } from '@jest/globals';
import { NukiErrorCode, nukiErrorName } from '../../../../../src/families/nuki/protocol/nuki-commands.js';
import { NukiFrameError } from '../../../../../src/families/nuki/protocol/nuki-frame.js';
import {
  decodeAddKeypadCode,
  decodeKeypadActionLogData,
  decodeKeypadCode,
  decodeKeypadCodeCount,
  decodeKeypadCodeId,
  decodeRemoveKeypadCode,
  decodeRequestKeypadCodes,
  decodeUpdateKeypadCode,
  decodeUpdateTime,
  encodeAddKeypadCode,
  encodeKeypadActionLogData,
  encodeKeypadCode,
  encodeKeypadCodeCount,
  encodeKeypadCodeId,
  encodeRemoveKeypadCode,
  encodeRequestKeypadCodes,
  encodeUpdateKeypadCode,
  encodeUpdateTime,
  UNLIMITED_KEYPAD_TIME,
  weekdayMask,
  weekdaysOfMask,
  type NukiKeypadTimeLimits,
} from '../../../../../src/families/nuki/protocol/nuki-keypad-messages.js';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const NONCE = Buffer.alloc(32, 0xab);
const NONCE_HEX = 'ab'.repeat(32);
// 2026-03-01 08:00:00 UTC and 2026-03-08 18:30:15 UTC
const FROM = Date.UTC(2026, 2, 1, 8, 0, 0);
const UNTIL = Date.UTC(2026, 2, 8, 18, 30, 15);
const FROM_HEX = 'ea07 03 01 08 00 00';
const UNTIL_HEX = 'ea07 03 08 12 1e 0f';
// "Guest" zero-padded to the spec's 20 bytes.
const NAME_HEX = '4775657374' + '00'.repeat(15);

const WEEKDAY_LIMITS: NukiKeypadTimeLimits = {
  timeLimited: true,
  allowedFrom: FROM,
  allowedUntil: UNTIL,
  allowedWeekdays: 0b0111_1100,
  allowedFromTime: { hour: 9, minute: 0 },
  allowedUntilTime: { hour: 17, minute: 30 },
};
// time limited | from | until | weekdays | from time | until time
const LIMITS_HEX = `01 ${FROM_HEX} ${UNTIL_HEX} 7c 09 00 11 1e`;

describe('weekday mask (bit 6 Monday … bit 0 Sunday, 0 = every day)', () => {
  it('draws the spec\'s "- MO TU WE TH FR SA SU" from bit 7 down', () => {
    expect(weekdayMask([1])).toBe(0b0100_0000);
    expect(weekdayMask([6])).toBe(0b0000_0010);
    expect(weekdayMask([0])).toBe(0b0000_0001);
    expect(weekdayMask([1, 2, 3, 4, 5])).toBe(0b0111_1100);
    expect(weekdayMask([])).toBe(0);
  });

  it('reads every mask back to the days it holds', () => {
    for (let mask = 0; mask < 0x80; mask += 1) expect(weekdayMask(weekdaysOfMask(mask))).toBe(mask);
    expect(weekdaysOfMask(0b0000_0011)).toEqual([0, 6]);
  });

  it('refuses a weekday outside 0–6', () => {
    expect(() => weekdayMask([7])).toThrow(RangeError);
  });
});

describe('Add Keypad Code (0x0041)', () => {
  const message = { code: 482913, name: 'Guest', limits: WEEKDAY_LIMITS, nonce: NONCE, securityPin: 1234 };
  // code u32 LE 482913 = 0x00075E61 | name[20] | limits | nonce | PIN u16 LE 1234 = 0x04D2
  const layout = hex(`615e0700 ${NAME_HEX} ${LIMITS_HEX} ${NONCE_HEX} d204`);

  it('lays out code, name[20], time limited, dates, weekdays, daily window, nonce and PIN as the spec does', () => {
    expect(encodeAddKeypadCode(message).toString('hex')).toBe(layout.toString('hex'));
    expect(layout.length).toBe(4 + 20 + 1 + 7 + 7 + 1 + 2 + 2 + 32 + 2);
  });

  it('decodes its own layout', () => {
    expect(decodeAddKeypadCode(layout)).toEqual(message);
  });

  it('sends an unlimited code as flag 0 and zero dates', () => {
    const payload = encodeAddKeypadCode({ ...message, limits: UNLIMITED_KEYPAD_TIME });
    expect(payload.subarray(24, 24 + 1 + 14 + 5).equals(Buffer.alloc(20))).toBe(true);
    expect(decodeAddKeypadCode(payload).limits).toEqual(UNLIMITED_KEYPAD_TIME);
  });

  it('refuses a short payload with bad_length', () => {
    expect(() => decodeAddKeypadCode(layout.subarray(0, layout.length - 1))).toThrow(NukiFrameError);
  });

  it('refuses a time of day the lock cannot hold', () => {
    expect(() => encodeAddKeypadCode({ ...message, limits: { ...WEEKDAY_LIMITS, allowedUntilTime: { hour: 24, minute: 0 } } })).toThrow(RangeError);
  });
});

describe('Keypad Code ID (0x0042)', () => {
  it('is the code id u16 and the creation date', () => {
    const payload = hex(`0700 ${FROM_HEX}`);
    expect(encodeKeypadCodeId({ codeId: 7, dateCreated: FROM }).equals(payload)).toBe(true);
    expect(decodeKeypadCodeId(payload)).toEqual({ codeId: 7, dateCreated: FROM });
    expect(() => decodeKeypadCodeId(payload.subarray(0, 8))).toThrow(NukiFrameError);
  });
});

describe('Request Keypad Codes (0x0043) and Keypad Code Count (0x0044)', () => {
  it('asks offset u16, count u16, nonce and PIN', () => {
    const payload = hex(`0000 6400 ${NONCE_HEX} d204`);
    const message = { offset: 0, count: 100, nonce: NONCE, securityPin: 1234 };
    expect(encodeRequestKeypadCodes(message).equals(payload)).toBe(true);
    expect(decodeRequestKeypadCodes(payload)).toEqual(message);
  });

  it('counts with one u16', () => {
    expect(encodeKeypadCodeCount({ count: 258 }).toString('hex')).toBe('0201');
    expect(decodeKeypadCodeCount(hex('0201'))).toEqual({ count: 258 });
    expect(() => decodeKeypadCodeCount(hex('02'))).toThrow(NukiFrameError);
  });
});

describe('Keypad Code (0x0045)', () => {
  const code = {
    codeId: 3,
    code: 482913,
    name: 'Guest',
    enabled: true,
    dateCreated: FROM,
    dateLastActive: null,
    lockCount: 5,
    limits: WEEKDAY_LIMITS,
  };
  // code id | code | name | enabled | created | last active (none: zeros) | lock count | limits
  const layout = hex(`0300 615e0700 ${NAME_HEX} 01 ${FROM_HEX} ${'00'.repeat(7)} 0500 ${LIMITS_HEX}`);

  it('lays out id, code, name, enabled, dates, lock count and the time fields as the spec does', () => {
    expect(encodeKeypadCode(code).toString('hex')).toBe(layout.toString('hex'));
    expect(decodeKeypadCode(layout)).toEqual(code);
  });

  it('reads a code whose time fields were left off because it is not time limited', () => {
    const short = Buffer.concat([layout.subarray(0, 2 + 4 + 20 + 1 + 14 + 2), hex('00')]);
    expect(decodeKeypadCode(short).limits).toEqual(UNLIMITED_KEYPAD_TIME);
  });

  it('refuses a time-limited code without its time fields', () => {
    const short = Buffer.concat([layout.subarray(0, 2 + 4 + 20 + 1 + 14 + 2), hex('01')]);
    expect(() => decodeKeypadCode(short)).toThrow(NukiFrameError);
  });
});

describe('Update Keypad Code (0x0046) and Remove Keypad Code (0x0047)', () => {
  it('updates id, code, name, enabled, time fields, nonce and PIN', () => {
    const message = { codeId: 3, code: 482913, name: 'Guest', enabled: false, limits: WEEKDAY_LIMITS, nonce: NONCE, securityPin: 1234 };
    const layout = hex(`0300 615e0700 ${NAME_HEX} 00 ${LIMITS_HEX} ${NONCE_HEX} d204`);
    expect(encodeUpdateKeypadCode(message).toString('hex')).toBe(layout.toString('hex'));
    expect(decodeUpdateKeypadCode(layout)).toEqual(message);
  });

  it('removes by code id with nonce and PIN', () => {
    const layout = hex(`0300 ${NONCE_HEX} d204`);
    expect(encodeRemoveKeypadCode({ codeId: 3, nonce: NONCE, securityPin: 1234 }).equals(layout)).toBe(true);
    expect(decodeRemoveKeypadCode(layout)).toEqual({ codeId: 3, nonce: NONCE, securityPin: 1234 });
  });
});

describe('Update Time (0x0021)', () => {
  it('is the time, the nonce and the PIN', () => {
    const layout = hex(`${UNTIL_HEX} ${NONCE_HEX} d204`);
    expect(encodeUpdateTime({ time: UNTIL, nonce: NONCE, securityPin: 1234 }).equals(layout)).toBe(true);
    expect(decodeUpdateTime(layout)).toEqual({ time: UNTIL, nonce: NONCE, securityPin: 1234 });
  });

  it('refuses an impossible date', () => {
    expect(() => decodeUpdateTime(hex(`${'00'.repeat(7)} ${NONCE_HEX} d204`))).toThrow(NukiFrameError);
  });
});

describe('a keypad action log entry (type 0x05)', () => {
  it('is action, source, completion status and the code id u16', () => {
    const data = { action: 0x01, source: 0x01, completionStatus: 0x00, codeId: 0x0102 };
    expect(encodeKeypadActionLogData(data).toString('hex')).toBe('0101000201');
    expect(decodeKeypadActionLogData(hex('0101e00000'))).toEqual({ action: 1, source: 1, completionStatus: 0xe0, codeId: 0 });
  });
});

describe('the keypad error codes (§6)', () => {
  it('names 0x29–0x2E as the spec does', () => {
    expect(NukiErrorCode.K_ERROR_TOO_MANY_ENTRIES).toBe(0x29);
    expect(nukiErrorName(0x29)).toBe('K_ERROR_TOO_MANY_ENTRIES');
    expect(nukiErrorName(0x2a)).toBe('K_ERROR_CODE_ALREADY_EXISTS');
    expect(nukiErrorName(0x2b)).toBe('K_ERROR_CODE_INVALID');
    expect(nukiErrorName(0x2c)).toBe('K_ERROR_CODE_INVALID_TIMEOUT_1');
    expect(nukiErrorName(0x2d)).toBe('K_ERROR_CODE_INVALID_TIMEOUT_2');
    expect(nukiErrorName(0x2e)).toBe('K_ERROR_CODE_INVALID_TIMEOUT_3');
  });
});
