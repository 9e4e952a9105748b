import { describe, expect, it } from '@jest/globals';
import { encodeTtlockReply, parseTtlockReply, ttlockCommandName, ttlockErrorName } from '../../../../src/families/ttlock/protocol/ttlock-commands.js';
import { standardMaximCrc, ttlockCrc } from '../../../../src/families/ttlock/protocol/ttlock-crc.js';
import { decryptTtlockPayload, encryptTtlockPayload, TtlockCipherError } from '../../../../src/families/ttlock/protocol/ttlock-crypto.js';
import { dissectTtlockFrame, parseTtlockHex } from '../../../../src/families/ttlock/protocol/ttlock-frame-dissector.js';
import { DEFAULT_TTLOCK_VERSION, encodeTtlockFrame, parseTtlockFrame, TtlockFrameError } from '../../../../src/families/ttlock/protocol/ttlock-frame.js';
import { TtlockFrameReassembler } from '../../../../src/families/ttlock/protocol/ttlock-frame-reassembler.js';
import { decodeAdminKeypadCode, decodeStatus, encodeAdminKeypadCode, encodeCalibrateTime, encodeCheckUserTime, TtlockPayloadError } from '../../../../src/families/ttlock/protocol/ttlock-messages.js';
import { decodeLogPage, encodeLogPage, encodeLogRecord, encodeLogRequest, END_OF_LOG, TtlockLogType } from '../../../../src/families/ttlock/protocol/ttlock-operation-log.js';
import { decodePasscodePage, decodePasscodeRequest, encodePasscodePage, encodePasscodeRequest, TtlockPasscodeType } from '../../../../src/families/ttlock/protocol/ttlock-passcodes.js';
import { encodeTtlockAdvertisement, parseTtlockAdvertisement } from '../../../../src/families/ttlock/protocol/ttlock-advertisement.js';
import { decodeDate, instantOf, TtlockDateError, wallClockAt } from '../../../../src/families/ttlock/protocol/ttlock-wall-clock.js';

/**
 * The layouts the captures do not cover (docs/ttlock.md "What no capture shows"): built from the
 * Android SDK's layouts and checked against the vectors of ttlock-ble's and ttlock-rs's tests and
 * the values the guide derived; plus the codec's refusals of malformed input.
 */

const hex = (text: string): Buffer => Buffer.from(text, 'hex');
/** ttlock-ble's test key (synthetic). */
const TEST_KEY = hex('a1b2c3d4e5f60718293a4b5c6d7e8f90');
const D = (year: number, month: number, day: number, hour: number, minute: number, second = 0) => ({ year, month, day, hour, minute, second });

describe('CRC-8 with the vendor table', () => {
  it('has the check value of CRC-8/MAXIM for "123456789" (the walk never reaches index 0x21)', () => {
    expect(ttlockCrc(Buffer.from('123456789'))).toBe(0xa1);
    expect(standardMaximCrc(Buffer.from('123456789'))).toBe(0xa1);
  });

  it('differs from the standard table exactly at entry 0x21', () => {
    expect(ttlockCrc(Buffer.from([0x21]))).toBe(0x07);
    expect(standardMaximCrc(Buffer.from([0x21]))).toBe(0x7d);
  });

  it('matches ttlock-ble’s known frame (TestCRC::test_known_frame)', () => {
    expect(ttlockCrc(hex('7f5a0503020001000155aa2056ae48d08f38e9936f685bf5a332f55bbb67415bfddf32b713e4ca7fe13ec8c6'))).toBe(0x1a);
  });
});

describe('AES-128-CBC with IV = key', () => {
  it('decrypts ttlock-ble’s TestAES vector', () => {
    expect(decryptTtlockPayload(hex('3ddfd6e40bb3b6661207b1c5c29c222d'), TEST_KEY).toString('hex')).toBe('550112345678');
  });

  it('decrypts ttlock-ble’s CHECK_USER_TIME body (its BCD dates; the lock reads only the end)', () => {
    const frame = parseTtlockFrame(hex('7f5a0503020001000155aa2056ae48d08f38e9936f685bf5a332f55bbb67415bfddf32b713e4ca7fe13ec8c61a0d0a'));
    expect(decryptTtlockPayload(frame.payload, TEST_KEY).toString('hex')).toBe('0001311400991130140000000000000000');
  });

  it('an empty plaintext is an empty payload, and a payload that is not whole blocks or is padded wrong is refused', () => {
    expect(encryptTtlockPayload(Buffer.alloc(0), TEST_KEY)).toHaveLength(0);
    expect(() => decryptTtlockPayload(hex('00'.repeat(15)), TEST_KEY)).toThrow(TtlockCipherError);
    expect(() => decryptTtlockPayload(hex('3ddfd6e40bb3b6661207b1c5c29c222d'), hex('00'.repeat(16)))).toThrow(TtlockCipherError);
    expect(() => encryptTtlockPayload(Buffer.from('x'), hex('00'))).toThrow(RangeError);
  });
});

describe('frames', () => {
  it('builds the frame the guide derived: QUERY_STATE "SCIENER" under ttlock-ble’s key, header 05 03 02 0001 0001', () => {
    expect(encodeTtlockFrame(DEFAULT_TTLOCK_VERSION, 0x14, Buffer.from('SCIENER'), TEST_KEY).toString('hex')).toBe('7f5a0503020001000114aa1070a33471847bcd96bc28a01df1ccf318060d0a');
  });

  it('refuses bytes that are not one frame, saying why', () => {
    expect(() => parseTtlockFrame(hex('7f5a05'))).toThrow(/too short/);
    expect(() => parseTtlockFrame(hex('005a050302000100011400000d0a'))).toThrow(/7f5a/);
    expect(() => parseTtlockFrame(hex('7f5a0503020001000114aa10aabb'))).toThrow(/length byte says 16/);
    expect(() => parseTtlockFrame(hex('7f5a0503020001000145aa00e20d0aff'))).toThrow(TtlockFrameError);
  });

  it('reports a CRC that does not match without refusing the frame', () => {
    const frame = parseTtlockFrame(hex('7f5a0501010001000145aa00e30d0a'));
    expect(frame.crcOk).toBe(false);
    expect(frame.crc).toBe(0xe3);
  });
});

describe('reassembly by the length byte', () => {
  const frameA = encodeTtlockFrame(DEFAULT_TTLOCK_VERSION, 0x54, Buffer.from('450164', 'hex'), TEST_KEY);
  const frameB = encodeTtlockFrame(DEFAULT_TTLOCK_VERSION, 0x54, Buffer.alloc(40, 1), TEST_KEY);

  it('joins frames cut into 20-byte notifications, two back to back, in order', () => {
    const stream = Buffer.concat([frameA, frameB]);
    const reassembler = new TtlockFrameReassembler();
    const out: Buffer[] = [];
    for (let at = 0; at < stream.length; at += 20) out.push(...reassembler.push(stream.subarray(at, at + 20)));
    expect(out.map((frame) => frame.toString('hex'))).toEqual([frameA.toString('hex'), frameB.toString('hex')]);
  });

  it('skips garbage before a frame and a false start (7f5a inside junk)', () => {
    const reassembler = new TtlockFrameReassembler();
    const junk = hex('ffff7f5a0503020001000199aa02112233445566');
    expect(reassembler.push(Buffer.concat([junk, frameA]))).toEqual([frameA]);
    expect(reassembler.dropped).toBeGreaterThan(0);
  });
});

describe('replies', () => {
  it('reads success with data, failure with the error code, and an empty reply as success for the command asked', () => {
    expect(parseTtlockReply(hex('14012d0002'), 0x14)).toEqual({ command: 0x14, ok: true, data: hex('2d0002') });
    expect(parseTtlockReply(hex('190007'), 0x19)).toEqual({ command: 0x19, ok: false, errorCode: 0x07 });
    expect(parseTtlockReply(Buffer.alloc(0), 0x45)).toEqual({ command: 0x45, ok: true, data: Buffer.alloc(0) });
    expect(encodeTtlockReply(0x03, { errorCode: 0x16 }).toString('hex')).toBe('030016');
    expect(ttlockErrorName(0x16)).toBe('no free memory');
    expect(ttlockCommandName(0x47)).toBe('UNLOCK');
    expect(ttlockCommandName(0xee)).toBe('UNKNOWN_0xee');
  });

  it('reads ttlock-ble’s captured status reply: battery 45, locked', () => {
    expect(decodeStatus(hex('2d0002'))).toEqual({ battery: 45, state: 0 });
    expect(() => decodeStatus(hex('2d'))).toThrow(TtlockPayloadError);
  });
});

describe('dates as decimal bytes on the lock’s wall clock', () => {
  it('writes ttlock-ble’s calibration vector (2026-05-11 14:23:07 → 1a050b0e1707), not BCD', () => {
    expect(encodeCalibrateTime(D(2026, 5, 11, 14, 23, 7)).toString('hex')).toBe('1a050b0e1707');
  });

  it('writes the default user check with decimal dates (the guide’s 00011f0e00630b1e0e00…)', () => {
    expect(encodeCheckUserTime({ start: D(2000, 1, 31, 14, 0), end: D(2099, 11, 30, 14, 0), lockFlagPos: 0, uid: 0 }).toString('hex')).toBe('00011f0e00630b1e0e0000000000000000');
  });

  it('refuses a date that is not one', () => {
    expect(() => decodeDate(hex('1a0d010000'))).toThrow(TtlockDateError);
    expect(() => decodeDate(hex('1a02300000'))).toThrow(TtlockDateError);
    expect(() => decodeDate(hex('1a02'))).toThrow(TtlockDateError);
  });

  it('reads and writes local time in the lock’s zone, DST included', () => {
    expect(wallClockAt(Date.parse('2026-06-13T10:00:00Z'), 'Europe/Berlin')).toEqual(D(2026, 6, 13, 12, 0));
    expect(wallClockAt(Date.parse('2026-01-13T10:00:00Z'), 'Europe/Berlin')).toEqual(D(2026, 1, 13, 11, 0));
    expect(instantOf(D(2026, 3, 29, 6, 0), 'Europe/Berlin')).toBe(Date.parse('2026-03-29T04:00:00Z'));
    expect(instantOf(D(2026, 10, 25, 6, 0), 'Europe/Berlin')).toBe(Date.parse('2026-10-25T05:00:00Z'));
  });

  it('the admin keypad code is one byte per digit (its value)', () => {
    expect(encodeAdminKeypadCode('0123456').toString('hex')).toBe('00010203040506');
    expect(decodeAdminKeypadCode(hex('00010203040506'))).toBe('0123456');
  });
});

describe('passcodes (0x03, 0x07)', () => {
  it('adds a PERIOD code with start and end, and a PERMANENT one with its start only (the Android SDK; the guide’s vectors)', () => {
    expect(encodePasscodeRequest({ op: 'add', passcode: { type: TtlockPasscodeType.period, code: '123456', start: D(2026, 5, 17, 12, 0), end: D(2026, 5, 18, 12, 0) } }).toString('hex')).toBe('0203063132333435361a05110c001a05120c00');
    expect(encodePasscodeRequest({ op: 'add', passcode: { type: TtlockPasscodeType.permanent, code: '123456', start: D(2026, 5, 17, 12, 0), end: null } }).toString('hex')).toBe('0201063132333435361a05110c00');
  });

  it('removes one (ttlock-ble: 03 01 04 "5678"), clears all, rewrites a window', () => {
    expect(encodePasscodeRequest({ op: 'remove', type: TtlockPasscodeType.permanent, code: '5678' }).toString('hex')).toBe('03010435363738');
    expect(encodePasscodeRequest({ op: 'clear' }).toString('hex')).toBe('01');
    const modify = encodePasscodeRequest({ op: 'modify', type: TtlockPasscodeType.period, code: '048291', start: D(2026, 6, 13, 10, 0), end: D(2026, 6, 20, 10, 0) });
    // op 5, type, old code, new length 0 (the digits stay), start, end.
    expect(modify.toString('hex')).toBe('05030630343832393100' + '1a060d0a00' + '1a06140a00');
    expect(decodePasscodeRequest(modify)).toEqual({ op: 'modify', type: 3, code: '048291', start: D(2026, 6, 13, 10, 0), end: D(2026, 6, 20, 10, 0) });
  });

  it('refuses a code that is not 4 to 9 digits', () => {
    expect(() => encodePasscodeRequest({ op: 'remove', type: 1, code: '123' })).toThrow(RangeError);
    expect(() => encodePasscodeRequest({ op: 'remove', type: 1, code: '12ab' })).toThrow(RangeError);
    expect(() => decodePasscodeRequest(hex('020106313233'))).toThrow(TtlockPayloadError);
  });

  it('reads back what it writes, page by page, and the end of the list', () => {
    const passcodes = [{ type: TtlockPasscodeType.period, code: '048291', start: D(2026, 6, 13, 10, 0), end: D(2026, 6, 20, 10, 0) }];
    expect(decodePasscodePage(encodePasscodePage(7, passcodes))).toEqual({ end: false, nextSequence: 7, passcodes });
  });
});

describe('the operation log (0x25)', () => {
  it('asks by explicit sequence (ttlock-ble: 002a)', () => {
    expect(encodeLogRequest(42).toString('hex')).toBe('002a');
  });

  it('reads ttlock-ble’s keypad unlock record: the code in clear, the battery, the lock’s time', () => {
    const record = Buffer.concat([hex('04'), hex('1a050b0e1707'), hex('2d'), hex('04'), Buffer.from('1234'), hex('00')]);
    const data = Buffer.concat([hex('0018'), hex('0001'), Buffer.from([record.length]), record]);
    expect(decodeLogPage(data)).toEqual({
      end: false,
      nextSequence: 1,
      records: [{ type: TtlockLogType.passcodeUnlock, time: D(2026, 5, 11, 14, 23, 7), battery: 45, passcode: '1234', tail: Buffer.concat([hex('04'), Buffer.from('1234'), hex('00')]) }],
    });
  });

  it('reads an app record’s uid and record id (ttlock-ble’s OPERATE_BLE_LOCK vector)', () => {
    const record = Buffer.concat([hex('1a'), hex('1a05110c0000'), hex('32'), hex('deadbeef6a0224a3')]);
    const page = decodeLogPage(Buffer.concat([hex('0014'), hex('0009'), Buffer.from([record.length]), record]));
    expect(page.records[0]).toMatchObject({ type: TtlockLogType.bluetoothLock, uid: 0xdeadbeef, recordId: 0x6a0224a3, battery: 50 });
  });

  it('an empty page is the end; a record that runs past the end is refused', () => {
    expect(decodeLogPage(END_OF_LOG)).toEqual({ end: true, nextSequence: 0, records: [] });
    expect(() => decodeLogPage(hex('0010000114040102'))).toThrow(TtlockPayloadError);
  });

  it('reads back what the simulated lock writes', () => {
    const encoded = encodeLogRecord({ type: TtlockLogType.wrongPasscode, time: D(2026, 6, 13, 12, 0, 5), battery: 80, passcode: '999999' });
    expect(decodeLogPage(encodeLogPage(12, [encoded])).records[0]).toMatchObject({ type: 7, passcode: '999999', battery: 80 });
  });
});

describe('the advertisement', () => {
  it('reads back the flags, battery and address the simulated lock advertises', () => {
    const { companyId, data } = encodeTtlockAdvertisement({ scene: 2, params: 0x03, battery: 61, address: 'D0:E1:00:00:00:05' });
    expect(parseTtlockAdvertisement(new Map([[companyId, data]]))).toEqual({ protocolType: 5, protocolVersion: 3, scene: 2, params: 0x03, battery: 61, address: 'D0:E1:00:00:00:05' });
  });
});

describe('the frame dissector (ekey-locks ttlock decode)', () => {
  it('dissects the DEF CON CHECK_ADMIN frame, with and without its key', () => {
    const frame = parseTtlockHex('7f5a050302000f000141aa10199c846fb2c5703f7564e30c4758e0319c0d0a');
    expect(dissectTtlockFrame(frame)).toEqual({
      protocol_type: 5,
      protocol_version: 3,
      scene: 2,
      group: 15,
      org: 1,
      command: '41',
      encrypted: true,
      length: 16,
      crc_ok: true,
      payload_hex: '199c846fb2c5703f7564e30c4758e031',
    });
    expect(dissectTtlockFrame(frame, hex('82452e7632b45dcdc0d48d242ca5bc7b')).payload_hex).toBe('26cdf04a00000002acd30b');
  });

  it('says why a frame cannot be read: not hex, not a frame, not this key', () => {
    expect(() => parseTtlockHex('xyz')).toThrow(/hex/);
    expect(() => parseTtlockHex('7f5')).toThrow(/even/);
    expect(() => dissectTtlockFrame(hex('7f5a'))).toThrow(TtlockFrameError);
    expect(() => dissectTtlockFrame(hex('7f5a050302000f000141aa10199c846fb2c5703f7564e30c4758e0319c0d0a'), hex('00'.repeat(16)))).toThrow(/key/);
    expect(parseTtlockHex('0x7f 5a:05').toString('hex')).toBe('7f5a05');
  });
});
