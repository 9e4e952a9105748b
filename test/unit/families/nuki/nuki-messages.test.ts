import { describe, expect, it } from '@jest/globals';
import { NukiCommand, NukiCompletionStatus, NukiDoorSensorState, NukiLockAction, NukiLockState, NukiTrigger } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { NukiFrameError } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import {
  decodeAuthorizationAuthenticator,
  decodeAuthorizationData,
  decodeAuthorizationId,
  decodeAuthorizationIdConfirmation,
  decodeBatteryReport,
  decodeChallenge,
  decodeConfig,
  decodeErrorReport,
  decodeKeyturnerStates,
  decodeLockAction,
  decodeLogEntry,
  decodeLogEntryCount,
  decodeNukiBatteryByte,
  decodeNukiTimestamp,
  decodePublicKey,
  decodeRequestConfig,
  decodeRequestData,
  decodeRequestLogEntries,
  decodeStatus,
  decodeVerifySecurityPin,
  encodeAuthorizationAuthenticator,
  encodeAuthorizationData,
  encodeAuthorizationId,
  encodeAuthorizationIdConfirmation,
  encodeBatteryReport,
  encodeChallenge,
  encodeConfig,
  encodeErrorReport,
  encodeKeyturnerStates,
  encodeLockAction,
  encodeLogEntry,
  encodeLogEntryCount,
  encodeNukiBatteryByte,
  encodeNukiTimestamp,
  encodePublicKey,
  encodeRequestConfig,
  encodeRequestData,
  encodeRequestLogEntries,
  encodeStatus,
  encodeVerifySecurityPin,
  type NukiBatteryState,
  type NukiKeyturnerStates,
} from '../../../../src/families/nuki/protocol/nuki-messages.js';

const bytes = (length: number, fill: number): Buffer => Buffer.alloc(length, fill);
const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const NOON = Date.UTC(2026, 0, 31, 12, 34, 56);

/** One payload type: its codec, a sample value, and the shortest payload its decoder accepts. */
interface Case {
  name: string;
  encode: (value: never) => Buffer;
  decode: (payload: Buffer) => unknown;
  value: unknown;
  minimumLength: number;
}

const codec = <T>(name: string, encode: (value: T) => Buffer, decode: (payload: Buffer) => T, value: T, minimumLength: number): Case => ({
  name,
  encode,
  decode,
  value,
  minimumLength,
});

const cases: Case[] = [
  codec('Request Data', encodeRequestData, decodeRequestData, { command: NukiCommand.keyturnerStates, additionalData: Buffer.alloc(0) }, 2),
  codec('Request Data with additional data', encodeRequestData, decodeRequestData, { command: NukiCommand.challenge, additionalData: bytes(3, 9) }, 2),
  codec('Public Key', encodePublicKey, decodePublicKey, { publicKey: bytes(32, 1) }, 32),
  codec('Challenge', encodeChallenge, decodeChallenge, { nonce: bytes(32, 2) }, 32),
  codec('Authorization Authenticator', encodeAuthorizationAuthenticator, decodeAuthorizationAuthenticator, { authenticator: bytes(32, 3) }, 32),
  codec('Authorization Data', encodeAuthorizationData, decodeAuthorizationData, { authenticator: bytes(32, 4), idType: 1, appId: 0xdeadbeef, name: 'Gateway ☂', nonce: bytes(32, 5) }, 101),
  codec('Authorization-ID', encodeAuthorizationId, decodeAuthorizationId, { authenticator: bytes(32, 6), authorizationId: 7, lockUuid: bytes(16, 8), nonce: bytes(32, 9) }, 84),
  codec('Authorization-ID Confirmation', encodeAuthorizationIdConfirmation, decodeAuthorizationIdConfirmation, { authenticator: bytes(32, 10), authorizationId: 0xffffffff }, 36),
  codec('Lock Action', encodeLockAction, decodeLockAction, { action: NukiLockAction.lock, appId: 42, flags: 0x02, nameSuffix: null, nonce: bytes(32, 11) }, 38),
  codec('Lock Action with name suffix', encodeLockAction, decodeLockAction, { action: NukiLockAction.unlock, appId: 42, flags: 0, nameSuffix: 'via HomeKit', nonce: bytes(32, 12) }, 38),
  codec('Status', encodeStatus, decodeStatus, { status: 1 }, 1),
  codec('Error Report', encodeErrorReport, decodeErrorReport, { errorCode: 0xfd, command: NukiCommand.lockAction }, 3),
  codec(
    'Battery Report',
    encodeBatteryReport,
    decodeBatteryReport,
    {
      batteryDrain: 1234,
      batteryVoltage: 5800,
      criticalBatteryState: 0,
      lockAction: NukiLockAction.unlock,
      startVoltage: 5900,
      lowestVoltage: 5400,
      lockDistance: 720,
      startTemperature: -5,
      maxTurnCurrent: 900,
      batteryResistance: 150,
      trailing: Buffer.alloc(0),
    },
    17,
  ),
  codec('Request Config', encodeRequestConfig, decodeRequestConfig, { nonce: bytes(32, 13) }, 32),
  codec(
    'Config',
    encodeConfig,
    decodeConfig,
    {
      nukiId: 0x2a3b4c5d,
      name: 'Back Door',
      latitude: 47.0625,
      longitude: 15.4375,
      autoUnlatch: false,
      pairingEnabled: true,
      buttonEnabled: true,
      ledEnabled: false,
      ledBrightness: 3,
      currentTime: NOON,
      timezoneOffsetMinutes: -300,
      dstMode: 1,
      hasFob: false,
      fobAction1: 1,
      fobAction2: 2,
      fobAction3: 0,
      singleLock: true,
      advertisingMode: 2,
      hasKeypad: true,
      firmwareVersion: [2, 8, 15],
      hardwareRevision: [4, 1],
      homeKitStatus: 3,
      timezoneId: 37,
      trailing: Buffer.alloc(0),
    },
    74,
  ),
  codec('Verify Security PIN', encodeVerifySecurityPin, decodeVerifySecurityPin, { nonce: bytes(32, 14), securityPin: 1234 }, 34),
  codec(
    'Request Log Entries',
    encodeRequestLogEntries,
    decodeRequestLogEntries,
    { startIndex: 100, count: 20, sortOrder: 1, totalCount: true, nonce: bytes(32, 15), securityPin: 4321 },
    42,
  ),
  codec('Log Entry Count', encodeLogEntryCount, decodeLogEntryCount, { loggingEnabled: true, count: 321, doorSensorEnabled: true, doorSensorLoggingEnabled: false }, 3),
  codec('Log Entry Count (short)', encodeLogEntryCount, decodeLogEntryCount, { loggingEnabled: false, count: 0, doorSensorEnabled: null, doorSensorLoggingEnabled: null }, 3),
  codec(
    'Log Entry (lock action)',
    encodeLogEntry,
    decodeLogEntry,
    {
      index: 77,
      timestamp: NOON,
      authorizationId: 3,
      name: "Olivia's iPhone",
      detail: {
        kind: 'lock_action',
        action: NukiLockAction.unlock,
        trigger: NukiTrigger.system,
        flags: 0,
        completionStatus: NukiCompletionStatus.success,
        trailing: Buffer.alloc(0),
      },
    },
    48,
  ),
  codec(
    'Log Entry (keypad action, raw)',
    encodeLogEntry,
    decodeLogEntry,
    { index: 78, timestamp: NOON, authorizationId: 0, name: 'Keypad', detail: { kind: 'other', type: 0x05, data: hex('0201000700') } },
    48,
  ),
];

describe('payload codecs', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s: decode(encode(x)) is x', (_name, c) => {
    expect(c.decode(c.encode(c.value as never))).toEqual(c.value);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s: encode(decode(p)) is p', (_name, c) => {
    const payload = c.encode(c.value as never);
    expect(c.encode(c.decode(payload) as never)).toEqual(payload);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s: a payload one byte short of the minimum is bad_length', (_name, c) => {
    const payload = c.encode(c.value as never);
    expect(payload.length).toBeGreaterThanOrEqual(c.minimumLength);
    expect(() => c.decode(payload.subarray(0, c.minimumLength - 1))).toThrow(NukiFrameError);
    try {
      c.decode(payload.subarray(0, c.minimumLength - 1));
    } catch (error) {
      expect(error).toMatchObject({ reason: 'bad_length' });
    }
  });
});

describe('payload details', () => {
  it('writes names as 32 zero-padded UTF-8 bytes, cutting at a character boundary', () => {
    const payload = encodeAuthorizationData({ authenticator: bytes(32, 0), idType: 0, appId: 1, name: 'Marc (Test)', nonce: bytes(32, 0) });
    expect(payload.subarray(37, 69)).toEqual(Buffer.concat([Buffer.from('Marc (Test)'), Buffer.alloc(21)]));
    const long = decodeAuthorizationData(encodeAuthorizationData({ authenticator: bytes(32, 0), idType: 0, appId: 1, name: `${'x'.repeat(30)}☂☂`, nonce: bytes(32, 0) }));
    expect(long.name).toBe('x'.repeat(30)); // "☂" is 3 bytes: it does not fit in the last 2
  });

  it('lays Lock Action out as action, app id u32 LE, flags, [suffix 20], nonce 32', () => {
    const payload = encodeLockAction({ action: 0x03, appId: 0x01020304, flags: 0x01, nameSuffix: 'x', nonce: bytes(32, 0xee) });
    expect(payload.length).toBe(58);
    expect(payload.subarray(0, 7)).toEqual(hex('03 04030201 01 78'));
    expect(() => decodeLockAction(Buffer.alloc(40))).toThrow(NukiFrameError);
  });

  it('reads the Error Report code as the unsigned byte and writes a signed one the same way', () => {
    expect(decodeErrorReport(hex('fd 0d00'))).toEqual({ errorCode: 0xfd, command: NukiCommand.lockAction });
    expect(encodeErrorReport({ errorCode: -3, command: 0x000d })).toEqual(hex('fd 0d00'));
  });

  it('keeps bytes beyond the known Config and Battery Report layouts', () => {
    const config = decodeConfig(Buffer.concat([encodeConfig({ ...(cases.find((c) => c.name === 'Config')?.value as Parameters<typeof encodeConfig>[0]) }), hex('aabb')]));
    expect(config.trailing).toEqual(hex('aabb'));
    const report = decodeBatteryReport(Buffer.concat([Buffer.alloc(17), hex('01')]));
    expect(report.trailing).toEqual(hex('01'));
  });

  it('fails a lock-action Log Entry with fewer than 4 data bytes', () => {
    const entry = encodeLogEntry({ index: 1, timestamp: NOON, authorizationId: 1, name: 'a', detail: { kind: 'other', type: 0x02, data: hex('0100') } });
    expect(() => decodeLogEntry(entry)).toThrow(NukiFrameError);
  });
});

describe('timestamps (read as UTC)', () => {
  it('round-trip whole seconds', () => {
    expect(decodeNukiTimestamp(encodeNukiTimestamp(NOON))).toBe(NOON);
    expect(encodeNukiTimestamp(Date.UTC(2016, 2, 7, 8, 15, 30))).toEqual(hex('E007 03 07 08 0F 1E'));
  });

  it('are null for an impossible date (all zeros, month 13, 30 February)', () => {
    expect(decodeNukiTimestamp(Buffer.alloc(7))).toBeNull();
    expect(decodeNukiTimestamp(hex('E007 0D 01 00 00 00'))).toBeNull();
    expect(decodeNukiTimestamp(hex('EA07 02 1E 00 00 00'))).toBeNull();
    expect(encodeNukiTimestamp(null)).toEqual(Buffer.alloc(7));
  });
});

describe('Keyturner States, parsed by length', () => {
  const base = hex('02 03 06 EA07 01 1F 0C 22 38 3C00 00');
  const fifteen = Buffer.concat([base, hex('05 00')]);
  const twenty = Buffer.concat([base, hex('05 00 01 06 00 02 01')]);
  const twentySeven = Buffer.concat([twenty, hex('0c 03 c4 01 10 00 00')]);

  it('reads the 15-byte variant and leaves the later fields null', () => {
    const expected: NukiKeyturnerStates = {
      nukiState: 2,
      lockState: NukiLockState.unlocked,
      trigger: NukiTrigger.autoLock,
      currentTime: Date.UTC(2026, 0, 31, 12, 34, 56),
      timezoneOffsetMinutes: 60,
      battery: { critical: false, charging: null, percent: null },
      configUpdateCount: 5,
      lockNGoTimer: 0,
      lastLockAction: null,
      lastLockActionTrigger: null,
      lastLockActionCompletionStatus: null,
      doorSensorState: null,
      nightModeActive: null,
      accessoryBatteryState: null,
      trailing: Buffer.alloc(0),
    };
    expect(decodeKeyturnerStates(fifteen)).toEqual(expected);
  });

  it('reads the 20-byte variant up to night mode', () => {
    expect(decodeKeyturnerStates(twenty)).toMatchObject({
      lastLockAction: NukiLockAction.unlock,
      lastLockActionTrigger: NukiTrigger.autoLock,
      lastLockActionCompletionStatus: NukiCompletionStatus.success,
      doorSensorState: NukiDoorSensorState.doorClosed,
      nightModeActive: true,
      accessoryBatteryState: null,
      trailing: Buffer.alloc(0),
    });
  });

  it('reads the 27-byte variant and keeps the bytes after the accessory battery state raw', () => {
    expect(decodeKeyturnerStates(twentySeven)).toMatchObject({ nightModeActive: true, accessoryBatteryState: 0x0c, trailing: hex('03 c4 01 10 00 00') });
  });

  it.each([
    ['13', base],
    ['15', fifteen],
    ['20', twenty],
    ['27', twentySeven],
  ])('encodes a decoded %s-byte payload back to itself', (_length, payload) => {
    expect(encodeKeyturnerStates(decodeKeyturnerStates(payload))).toEqual(payload);
  });

  it('is bad_length below 13 bytes', () => {
    expect(() => decodeKeyturnerStates(base.subarray(0, 12))).toThrow(NukiFrameError);
  });
});

describe('the battery byte', () => {
  it.each<[number, NukiBatteryState, string]>([
    [0x00, { critical: false, charging: null, percent: null }, 'old firmware, ok'],
    [0x01, { critical: true, charging: null, percent: null }, 'old firmware, critical'],
    [0x02, { critical: false, charging: true, percent: null }, 'charging, no level'],
    [0xc8, { critical: false, charging: false, percent: 100 }, '50 << 2: full'],
    [0x52, { critical: false, charging: true, percent: 40 }, '20 << 2 | charging'],
    [0x0d, { critical: true, charging: false, percent: 6 }, '3 << 2 | critical'],
  ])('reads 0x%s as %j (%s) and writes it back', (byte, state) => {
    expect(decodeNukiBatteryByte(byte)).toEqual(state);
    expect(encodeNukiBatteryByte(state)).toBe(byte);
  });
});
