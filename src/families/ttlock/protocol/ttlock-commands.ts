/**
 * TTLock V3 command bytes and the lock's error codes (docs/ttlock.md "Commands"), as the Android
 * SDK's `Command` and `LockError` name them (facts, not code). Only what this family sends or
 * reads is listed.
 */
export const TtlockCommand = {
  deviceFeatures: 0x01,
  managePasscode: 0x03,
  passcodeList: 0x07,
  searchStatus: 0x14,
  getAesKey: 0x19,
  operationLog: 0x25,
  checkRandom: 0x30,
  getLockTime: 0x34,
  checkAdmin: 0x41,
  calibrateTime: 0x43,
  initialize: 0x45,
  unlock: 0x47,
  setAdminKeypadCode: 0x53,
  response: 0x54,
  checkUserTime: 0x55,
  addAdmin: 0x56,
  operateFinished: 0x57,
  lock: 0x58,
  readDeviceInfo: 0x90,
} as const;

const COMMAND_NAMES: Readonly<Record<number, string>> = {
  0x01: 'SEARCH_DEVICE_FEATURE',
  0x03: 'MANAGE_KEYBOARD_PASSWORD',
  0x05: 'IC_MANAGE',
  0x06: 'FR_MANAGE',
  0x07: 'PWD_LIST',
  0x14: 'SEARCH_BICYCLE_STATUS',
  0x19: 'GET_AES_KEY',
  0x25: 'GET_OPERATE_LOG',
  0x30: 'CHECK_RANDOM',
  0x31: 'INIT_PASSWORDS',
  0x34: 'GET_LOCK_TIME',
  0x36: 'AUTO_LOCK_MANAGE',
  0x41: 'CHECK_ADMIN',
  0x43: 'TIME_CALIBRATE',
  0x45: 'INITIALIZATION',
  0x47: 'UNLOCK',
  0x52: 'RESET_LOCK',
  0x53: 'SET_ADMIN_KEYBOARD_PWD',
  0x54: 'RESPONSE',
  0x55: 'CHECK_USER_TIME',
  0x56: 'ADD_ADMIN',
  0x57: 'OPERATE_FINISHED',
  0x58: 'FUNCTION_LOCK',
  0x66: 'CONFIGURE_PASSAGE_MODE',
  0x90: 'READ_DEVICE_INFO',
};

/** The SDK's name of a command byte, or `UNKNOWN_0x..`. */
export function ttlockCommandName(command: number): string {
  return COMMAND_NAMES[command] ?? `UNKNOWN_0x${command.toString(16).padStart(2, '0')}`;
}

/** The lock's answer codes after a failure status (Android `LockError`). */
export const TtlockError = {
  crcError: 0x01,
  noPermission: 0x02,
  adminCheckFailed: 0x03,
  inSettingMode: 0x05,
  noAdmin: 0x06,
  notInSettingMode: 0x07,
  noPower: 0x0a,
  notLoggedIn: 0x12,
  operationFailed: 0x13,
  passcodeExists: 0x14,
  passcodeNotFound: 0x15,
  noFreeMemory: 0x16,
  invalidCommand: 0x1b,
  aesParseError: 0x30,
  keyInvalid: 0x31,
} as const;

const ERROR_NAMES: Readonly<Record<number, string>> = {
  0x01: 'CRC error',
  0x02: 'no permission',
  0x03: 'admin check failed',
  0x05: 'in setting mode',
  0x06: 'no admin',
  0x07: 'not in setting mode',
  0x08: 'dynamic passcode error',
  0x0a: 'no power',
  0x0b: 'keypad init failed',
  0x0d: 'key flag invalid',
  0x0e: 'eKey expired',
  0x0f: 'passcode length invalid',
  0x10: 'super passcode equals delete passcode',
  0x11: 'not yet effective',
  0x12: 'not logged in',
  0x13: 'operation failed',
  0x14: 'passcode exists',
  0x15: 'passcode does not exist',
  0x16: 'no free memory',
  0x1b: 'invalid command',
  0x1d: 'invalid vendor',
  0x30: 'AES parse error',
  0x31: 'key invalid (was the lock reset?)',
  0x60: 'cannot change passcode',
};

/** What an error code means, in the SDK's words. */
export function ttlockErrorName(code: number): string {
  return ERROR_NAMES[code] ?? `error 0x${code.toString(16).padStart(2, '0')}`;
}

/** The plaintext of every lock reply: the echoed command, the status, then data (or the error code). */
export type TtlockReply = { command: number; ok: true; data: Buffer } | { command: number; ok: false; errorCode: number };

/** Status byte of a reply that succeeded. */
export const TTLOCK_OK = 0x01;

/**
 * Reads a reply's plaintext. An empty plaintext (an unpaired lock's answer to INITIALIZATION) is
 * `ok` with no data for the command the caller expected.
 */
export function parseTtlockReply(plaintext: Buffer, expected: number): TtlockReply {
  if (plaintext.length === 0) return { command: expected, ok: true, data: Buffer.alloc(0) };
  const command = plaintext[0] ?? 0;
  if (plaintext.length < 2) return { command, ok: false, errorCode: 0 };
  if (plaintext[1] === TTLOCK_OK) return { command, ok: true, data: Buffer.from(plaintext.subarray(2)) };
  return { command, ok: false, errorCode: plaintext[2] ?? 0 };
}

/** A reply's plaintext: success with data, or failure with an error code. */
export function encodeTtlockReply(command: number, outcome: { data: Buffer } | { errorCode: number }): Buffer {
  return 'data' in outcome ? Buffer.concat([Buffer.from([command, TTLOCK_OK]), outcome.data]) : Buffer.from([command, 0x00, outcome.errorCode]);
}
