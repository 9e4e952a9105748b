import { describe, expect, it } from '@jest/globals';
import { NukiCommand, NukiErrorCode, NukiLockState, nukiCommandName, nukiConstantName, nukiErrorName } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { NUKI_APPLE_COMPANY_ID, NukiUuids, encodeNukiBeacon, parseNukiBeacon } from '../../../../src/families/nuki/protocol/nuki-uuids.js';

describe('command names', () => {
  it.each([
    [0x0001, 'Request Data'],
    [0x0003, 'Public Key'],
    [0x0007, 'Authorization-ID'],
    [0x0008, 'Remove User Authorization'],
    [0x000c, 'Keyturner States'],
    [0x000d, 'Lock Action'],
    [0x001e, 'Authorization-ID Confirmation'],
    [0x0020, 'Verify Security PIN'],
    [0x0032, 'Log Entry'],
    [0x0100, 'Simple Lock Action'],
  ])('0x%s is "%s", as the spec command table writes it', (id, name) => {
    expect(nukiCommandName(id)).toBe(name);
  });

  it('is "unknown" for ids the spec does not list', () => {
    expect(nukiCommandName(0x0002)).toBe('unknown');
    expect(nukiCommandName(0xffff)).toBe('unknown');
  });

  it('has a distinct id for every command and the §5 table count (52)', () => {
    const ids = Object.values(NukiCommand);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(52);
    for (const id of ids) expect(nukiCommandName(id)).not.toBe('unknown');
  });
});

describe('error names', () => {
  it('accepts the byte read unsigned or signed (Error Report says sint8)', () => {
    expect(nukiErrorName(0xfd)).toBe('ERROR_BAD_CRC');
    expect(nukiErrorName(-3)).toBe('ERROR_BAD_CRC');
    expect(nukiErrorName(-1)).toBe('ERROR_UNKNOWN');
    expect(nukiErrorName(NukiErrorCode.P_ERROR_NOT_PAIRING)).toBe('P_ERROR_NOT_PAIRING');
    expect(nukiErrorName(0x45)).toBe('K_ERROR_BUSY');
    expect(nukiErrorName(0x49)).toBe('K_ERROR_MOTOR_LOW_VOLTAGE');
  });

  it('is "unknown" for codes the spec does not list and for non-bytes', () => {
    expect(nukiErrorName(0x30)).toBe('unknown');
    expect(nukiErrorName(256)).toBe('unknown');
    expect(nukiErrorName(-129)).toBe('unknown');
    expect(nukiErrorName(1.5)).toBe('unknown');
  });

  it('names a value of any table', () => {
    expect(nukiConstantName(NukiLockState, 0xfe)).toBe('motorBlocked');
    expect(nukiConstantName(NukiLockState, 0x42)).toBeUndefined();
  });
});

describe('the Nuki iBeacon', () => {
  it('is parsed from the manufacturer data after Apple’s company id', () => {
    expect(NUKI_APPLE_COMPANY_ID).toBe(0x004c);
    const data = Buffer.from('0215' + 'a92ee200550111e4916c0800200c9a66' + '1234' + 'abcd' + 'c4', 'hex');
    expect(parseNukiBeacon(data)).toEqual({ serviceUuid: NukiUuids.keyturnerService, major: 0x1234, minor: 0xabcd, measuredPower: -60, newState: false });
  });

  it('flags a new state with measured power −59', () => {
    const beacon = encodeNukiBeacon({ newState: true, major: 1, minor: 2 });
    expect(beacon.readInt8(22)).toBe(-59);
    expect(parseNukiBeacon(beacon)).toEqual({ serviceUuid: NukiUuids.keyturnerService, major: 1, minor: 2, measuredPower: -59, newState: true });
    expect(parseNukiBeacon(encodeNukiBeacon({ newState: false }))).toMatchObject({ major: 0, minor: 0, measuredPower: -60, newState: false });
  });

  it('is null for other iBeacons, other manufacturer data and short data', () => {
    const other = encodeNukiBeacon({ newState: false });
    other.writeUInt8(other.readUInt8(5) ^ 0xff, 5);
    expect(parseNukiBeacon(other)).toBeNull();
    const notIBeacon = encodeNukiBeacon({ newState: false });
    notIBeacon[0] = 0x10;
    expect(parseNukiBeacon(notIBeacon)).toBeNull();
    expect(parseNukiBeacon(encodeNukiBeacon({ newState: false }).subarray(0, 22))).toBeNull();
  });

  it('uses the full lower-case UUIDs of §2', () => {
    expect(NukiUuids).toEqual({
      initializationService: 'a92ee000-5501-11e4-916c-0800200c9a66',
      pairingService: 'a92ee100-5501-11e4-916c-0800200c9a66',
      pairingGdio: 'a92ee101-5501-11e4-916c-0800200c9a66',
      keyturnerService: 'a92ee200-5501-11e4-916c-0800200c9a66',
      keyturnerGdio: 'a92ee201-5501-11e4-916c-0800200c9a66',
      keyturnerUsdio: 'a92ee202-5501-11e4-916c-0800200c9a66',
    });
  });
});
